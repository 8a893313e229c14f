#include "core/maintenance/migrate.hpp"

#include <functional>
#include <optional>

#include "core/documents/document.hpp"
#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/git/git_cli.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

// git declares a tracked file modified, without asking the filter, when its
// size differs from the one the index recorded: every rewritten file would
// look changed. Re-adding refreshes the recorded stat data. Only files whose
// staged content already is what the new file cleans to (`cleaned`) are
// touched, so no other change of the user's is staged.
void refresh_index(const Workspace& ws, const std::vector<std::pair<std::string, std::string>>& cleaned) {
  if (!ws.in_work_tree() || cleaned.empty()) return;
  const GitCli git(ws.top());
  std::vector<std::string> paths;
  for (const auto& [path, content] : cleaned) paths.push_back(path);
  const auto staged = git.index_ids(paths);
  std::vector<std::string> add;
  for (const auto& [path, content] : cleaned) {
    const auto id = staged.find(path);
    if (id != staged.end() && id->second == ws.repo()->hash_blob(content)) add.push_back(path);
  }
  if (!add.empty()) git.add(add);
}

// True when `file` (relative to the top) is one of `paths` or below one.
bool selected(const std::string& file, const std::vector<std::string>& paths) {
  if (paths.empty()) return true;
  for (const std::string& p : paths)
    if (p.empty() || p == "." || file == p || (file.starts_with(p) && (p.back() == '/' || file[p.size()] == '/')))
      return true;
  return false;
}

}  // namespace

namespace {

// A document's new content, and what that content cleans to (for the index
// refresh).
struct InPlace {
  std::string content;
  std::string cleaned;
};

// The one loop of migrate and checkout: reads each of `files` (one removed
// meanwhile is skipped), asks `decide` what it becomes (nullopt: it stays),
// writes that in place unless `dry_run`, and refreshes the index entries of
// what it wrote.
void rewrite_in_place(const Workspace& ws, const std::vector<fs::path>& files, bool dry_run, const char* what,
                      const Progress& progress,
                      const std::function<std::optional<InPlace>(const std::string& name, const std::string& input)>&
                          decide) {
  const SafeDir& base = *ws.base();
  std::vector<std::pair<std::string, std::string>> refreshed;  // (path, what it cleans to)
  for (std::size_t i = 0; i < files.size(); ++i) {
    if (const auto input = base.read(files[i])) {
      const std::string name = files[i].lexically_normal().string();
      if (auto next = decide(name, *input); next && !dry_run) {
        base.write_atomic(files[i], next->content);
        refreshed.emplace_back(name, std::move(next->cleaned));
      }
    }
    if (progress) progress(what, i + 1, files.size());
  }
  // The index refresh cleans these files in git's own filter process,
  // which must read them in the form they are in now.
  if (ws.committed_form() && !dry_run) ws.committed_form()->flush();
  refresh_index(ws, refreshed);
}

}  // namespace

MigrateReport run_migrate(const Workspace& ws, bool dry_run, const Progress& progress) {
  MigrateReport report;
  if (!ws.base()) return report;
  rewrite_in_place(ws, list_documents(*ws.base(), ws.storage()), dry_run, "Migrating documents", progress,
                   [&](const std::string& name, const std::string& input) -> std::optional<InPlace> {
    const DocumentKind kind = document_kind(name);
    if (dry_run) {
      const DocumentNeeds needs = document_needs(kind, input, ws.settings().min_size, ws.work_tree_form(name));
      if (needs.unreadable) report.skipped.push_back(name + ": " + *needs.unreadable);
      else if (!needs.inline_payloads.empty()) report.rewritten.push_back(name);
      else ++report.unchanged;
      return std::nullopt;
    }
    std::string cleaned;
    const TransformReport r = clean_document(kind, input, ws.new_blobs(),
                                             ws.settings().clean_options(name, ws.work_tree_form(name)),
                                             [&](std::string_view s) { cleaned.append(s); });
    if (r.passthrough) {
      report.skipped.push_back(name + ": " + (r.warnings.empty() ? std::string() : r.warnings.front()));
      return std::nullopt;
    }
    if (cleaned == input) {
      ++report.unchanged;
      return std::nullopt;
    }
    report.rewritten.push_back(name);  // written after clean stored every blob
    // In JP's form it is now in the committed form: clean must read it so
    // until `git jpblob checkout` restores it.
    if (ws.committed_form() && !ws.settings().smudge_refs_only) ws.committed_form()->note(name, true);
    return InPlace{cleaned, cleaned};
  });
  return report;
}

namespace {

// checkout's loop over `files`: each restored to JP's form in place.
CheckoutReport check_out_files(const Workspace& ws, const std::vector<fs::path>& files, bool dry_run,
                               const Progress& progress) {
  CheckoutReport report;
  rewrite_in_place(ws, files, dry_run, "Restoring documents", progress,
                   [&](const std::string& name, const std::string& input) -> std::optional<InPlace> {
    std::string restored;
    try {
      const TransformReport r = smudge_document(document_kind(name), input, ws.blobs(),
                                                ws.settings().smudge_options(name),
                                                [&](std::string_view s) { restored.append(s); });
      for (const auto& w : r.warnings) report.problems.push_back(w);
    } catch (const Error& e) {
      report.problems.push_back(e.what());
      return std::nullopt;
    }
    if (restored == input) {
      ++report.unchanged;
      return std::nullopt;
    }
    report.restored.push_back(name);
    if (ws.committed_form() && !dry_run) ws.committed_form()->note(name, false);  // JP's form again
    return InPlace{std::move(restored), input};  // the reference form is what it cleans back to
  });
  return report;
}

}  // namespace

CheckoutReport run_checkout(const Workspace& ws, const std::vector<std::string>& paths, bool dry_run,
                            const Progress& progress) {
  if (!ws.base()) return {};
  std::vector<fs::path> files;
  for (const fs::path& f : list_documents(*ws.base(), ws.storage()))
    if (selected(f.lexically_normal().string(), paths)) files.push_back(f);
  return check_out_files(ws, files, dry_run, progress);
}

CheckoutReport restore_unfiltered_checkout(const Workspace& ws, const Progress& progress) {
  if (!ws.base() || !ws.in_work_tree() || !ws.repo() || ws.settings().smudge_refs_only) return {};
  const SafeDir& base = *ws.base();
  const std::vector<fs::path> documents = list_documents(base, ws.storage());
  std::vector<std::string> names;
  for (const fs::path& f : documents) names.push_back(f.lexically_normal().string());
  const auto staged = GitCli(ws.top()).index_ids(names);
  std::vector<fs::path> files;
  for (std::size_t i = 0; i < documents.size(); ++i) {
    const auto id = staged.find(names[i]);
    if (id == staged.end() || (ws.committed_form() && ws.committed_form()->contains(names[i]))) continue;
    const auto bytes = base.read(documents[i]);
    // A conversation's reference, a session's URL: nothing else to restore.
    if (!bytes || (bytes->find("\"$blob\"") == std::string::npos && bytes->find("blob:sha256:") == std::string::npos))
      continue;
    if (ws.repo()->hash_blob(*bytes) == id->second) files.push_back(documents[i]);
  }
  return check_out_files(ws, files, false, progress);
}

}  // namespace jpblob
