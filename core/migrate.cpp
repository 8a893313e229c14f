#include "migrate.hpp"

#include <git2.h>

#include "conversations.hpp"
#include "error.hpp"
#include "subprocess.hpp"
#include "fs.hpp"
#include "payload.hpp"
#include "transform.hpp"

namespace jpblob {

namespace {

// git declares a tracked file modified, without asking the filter, when its
// size differs from the one the index recorded: every migrated file would
// look changed. Re-adding refreshes the recorded stat data. Only files whose
// staged content already is the migrated content are touched, so no other
// change of the user's is staged.
void refresh_index(const Workspace& ws, const std::vector<std::pair<std::string, std::string>>& rewritten) {
  if (!ws.repo() || !ws.repo()->workdir() || rewritten.empty()) return;
  const auto top = *ws.repo()->workdir();
  std::vector<std::string> ls = {"git", "ls-files", "--stage", "-z", "--"};
  for (const auto& [path, content] : rewritten) ls.push_back(path);
  auto r = run_command(ls, top);
  if (r.status != 0) return;
  std::vector<std::string> add = {"git", "add", "--"};
  for (const auto& [path, content] : rewritten) {
    const auto at = r.out.find("\t" + path + std::string(1, '\0'));
    if (at == std::string::npos || at < 41) continue;
    git_oid id;
    if (git_odb_hash(&id, content.data(), content.size(), GIT_OBJECT_BLOB) != 0) continue;
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, &id);
    if (r.out.compare(at - 42, 40, hex) == 0) add.push_back(path);
  }
  if (add.size() > 3) {
    auto a = run_command(add, top);
    if (a.status != 0) throw Error("migrated, but cannot refresh the index: " + a.err);
  }
}

}  // namespace

MigrateReport run_migrate(const Workspace& ws, bool dry_run, const Progress& progress) {
  MigrateReport report;
  std::vector<std::pair<std::string, std::string>> refreshed;  // (path in the work tree, new content)
  const auto files = list_conversations(ws.store().root().parent_path());
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto& file = files[i];
    const std::string input = read_file(file);
    const std::string name = file.lexically_relative(ws.top()).string();
    std::string cleaned;
    CleanOptions options;
    options.min_size = ws.settings().min_size;
    options.path = name;
    TransformReport r;
    if (dry_run) {
      std::vector<Reference> references, payloads;
      std::string why;
      if (!referenced_digests(input, options.min_size, references, payloads, why))
        report.skipped.push_back(name + ": " + why);
      else
        (!payloads.empty() ? report.rewritten.push_back(name) : void(++report.unchanged));
    } else {
      r = clean(input, ws.store(), options, [&](std::string_view s) { cleaned.append(s); });
      if (r.passthrough) report.skipped.push_back(name + ": " + (r.warnings.empty() ? std::string() : r.warnings.front()));
      else if (cleaned == input) ++report.unchanged;
      else {
        write_file_atomic(file, cleaned);  // after clean stored every blob
        report.rewritten.push_back(name);
        refreshed.emplace_back(name, std::move(cleaned));
      }
    }
    if (progress) progress("Migrating conversations", i + 1, files.size());
  }
  refresh_index(ws, refreshed);
  return report;
}

}  // namespace jpblob
