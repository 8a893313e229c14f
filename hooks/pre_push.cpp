#include "pre_push.hpp"

#include <sstream>

#include "core/base/error.hpp"
#include "core/base/trace.hpp"
#include "core/git/git_cli.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

bool all_zeros(const std::string& id) { return id.find_first_not_of('0') == std::string::npos; }

}  // namespace

PushCheckReport run_pre_push_hook(const fs::path& cwd, const std::string& where, const std::string& updates) {
  const Workspace ws = Workspace::open(cwd, std::nullopt, SharedSettings::Later);
  if (!ws.repo()) throw Error("pre-push must run in a git repository");
  const GitRepo& repo = *ws.repo();
  const GitCli git(repo.workdir() ? *repo.workdir() : repo.gitdir());
  std::vector<std::string> tips, have;
  bool bounded = true;  // every pushed ref's remote id is here: the input alone bounds the check
  std::istringstream in(updates);
  std::string local_ref, local_id, remote_ref, remote_id;
  while (in >> local_ref >> local_id >> remote_ref >> remote_id) {
    if (all_zeros(local_id)) continue;  // a deletion sends nothing
    tips.push_back(local_id);
    if (!all_zeros(remote_id) && repo.has_object(remote_id)) have.push_back(remote_id);
    else bounded = false;
  }
  if (tips.empty()) return {};
  const std::uint64_t max_blob_size = ws.settings().store.max_blob_size;
  // Opened with SharedSettings::Later: jpblob.minSize is the personal one
  // where a commit has no .jpblobconfig of its own.
  const std::uint64_t min_size = ws.settings().min_size;
  const auto ask_remote = [&] {
    if (where.empty()) return;
    if (auto ids = git.advertised_ids(where))
      for (std::string& id : *ids)
        if (repo.has_object(id)) have.push_back(std::move(id));
  };
  if (!bounded) ask_remote();
  PushCheckReport report = check_push(repo, git, max_blob_size, min_size, tips, have);
  if (bounded && !report.problems.empty()) {
    ask_remote();
    report = check_push(repo, git, max_blob_size, min_size, tips, have);
  }
  trace_push_verdict("pre-push", tips, report);
  return report;
}

}  // namespace jpblob
