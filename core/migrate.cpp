#include "migrate.hpp"

#include "document.hpp"
#include "error.hpp"
#include "fs.hpp"
#include "git_cli.hpp"

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

CheckoutReport run_checkout(const Workspace& ws, const std::vector<std::string>& paths, bool dry_run,
                            const Progress& progress) {
  CheckoutReport report;
  std::vector<std::pair<std::string, std::string>> refreshed;  // (path, what it cleans to)
  if (!ws.base()) return report;
  const SafeDir& base = *ws.base();
  std::vector<fs::path> files;
  for (const fs::path& f : list_documents(base, ws.storage()))
    if (selected(f.lexically_normal().string(), paths)) files.push_back(f);
  for (std::size_t i = 0; i < files.size(); ++i) {
    const fs::path& file = files[i];
    const std::string name = file.lexically_normal().string();
    if (auto input = base.read(file)) {
      std::string restored;
      try {
        const TransformReport r = smudge_document(document_kind(name), *input, ws.blobs(),
                                                  ws.settings().smudge_options(name),
                                                  [&](std::string_view s) { restored.append(s); });
        for (const auto& w : r.warnings) report.problems.push_back(w);
      } catch (const Error& e) {
        report.problems.push_back(e.what());
        restored = *input;
      }
      if (restored == *input) {
        ++report.unchanged;
      } else {
        if (!dry_run) base.write_atomic(file, restored);
        report.restored.push_back(name);
        refreshed.emplace_back(name, std::move(*input));
      }
    }
    if (progress) progress("Restoring documents", i + 1, files.size());
  }
  if (!dry_run) refresh_index(ws, refreshed);
  return report;
}

MigrateReport run_migrate(const Workspace& ws, bool dry_run, const Progress& progress) {
  MigrateReport report;
  std::vector<std::pair<std::string, std::string>> refreshed;  // (path in the work tree, new content)
  if (!ws.base()) return report;
  const SafeDir& base = *ws.base();
  const auto files = list_documents(base, ws.storage());
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& file = files[i];
    const DocumentKind kind = document_kind(file.string());
    const auto content = base.read(file);
    if (!content) continue;  // removed meanwhile
    const std::string& input = *content;
    const std::string name = file.lexically_normal().string();
    if (dry_run) {
      const DocumentNeeds needs = document_needs(kind, input, ws.settings().min_size);
      if (needs.unreadable) report.skipped.push_back(name + ": " + *needs.unreadable);
      else if (!needs.inline_payloads.empty()) report.rewritten.push_back(name);
      else ++report.unchanged;
    } else {
      std::string cleaned;
      const TransformReport r = clean_document(kind, input, ws.store(), ws.settings().clean_options(name),
                                               [&](std::string_view s) { cleaned.append(s); });
      if (r.passthrough) {
        report.skipped.push_back(name + ": " + (r.warnings.empty() ? std::string() : r.warnings.front()));
      } else if (cleaned == input) {
        ++report.unchanged;
      } else {
        base.write_atomic(file, cleaned);  // after clean stored every blob
        report.rewritten.push_back(name);
        refreshed.emplace_back(name, std::move(cleaned));
      }
    }
    if (progress) progress("Migrating documents", i + 1, files.size());
  }
  refresh_index(ws, refreshed);
  return report;
}

}  // namespace jpblob
