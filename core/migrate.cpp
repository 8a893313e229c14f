#include "migrate.hpp"

#include "document.hpp"
#include "error.hpp"
#include "fs.hpp"
#include "git_cli.hpp"

namespace jpblob {

namespace {

// git declares a tracked file modified, without asking the filter, when its
// size differs from the one the index recorded: every migrated file would
// look changed. Re-adding refreshes the recorded stat data. Only files whose
// staged content already is the migrated content are touched, so no other
// change of the user's is staged.
void refresh_index(const Workspace& ws, const std::vector<std::pair<std::string, std::string>>& rewritten) {
  if (!ws.in_work_tree() || rewritten.empty()) return;
  const GitCli git(ws.top());
  std::vector<std::string> paths;
  for (const auto& [path, content] : rewritten) paths.push_back(path);
  const auto staged = git.index_ids(paths);
  std::vector<std::string> add;
  for (const auto& [path, content] : rewritten) {
    const auto id = staged.find(path);
    if (id != staged.end() && id->second == ws.repo()->hash_blob(content)) add.push_back(path);
  }
  if (!add.empty()) git.add(add);
}

}  // namespace

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
