#include "pre_push.hpp"

#include <sstream>
#include <unordered_set>

#include "core/maintenance/commit_check.hpp"
#include "core/base/error.hpp"
#include "core/git/git_cli.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

bool all_zeros(const std::string& id) { return id.find_first_not_of('0') == std::string::npos; }

}  // namespace

PrePushReport run_pre_push_hook(const fs::path& cwd, const std::string& remote, const std::string& updates) {
  PrePushReport report;
  const Workspace ws = Workspace::open(cwd, std::nullopt, SharedSettings::Later);
  if (!ws.repo()) throw Error("pre-push must run in a git repository");
  const GitCli git(ws.repo()->workdir() ? *ws.repo()->workdir() : ws.repo()->gitdir());
  std::vector<std::string> commits;
  std::unordered_set<std::string> seen;
  std::istringstream in(updates);
  std::string local_ref, local_id, remote_ref, remote_id;
  while (in >> local_ref >> local_id >> remote_ref >> remote_id) {
    if (all_zeros(local_id)) continue;  // a deletion sends nothing
    std::vector<std::string> args = {local_id, "--not"};
    if (!all_zeros(remote_id) && ws.repo()->has_object(remote_id)) args.push_back(remote_id);
    else args.push_back("--remotes=" + remote);
    for (auto& id : git.rev_list(args))
      if (!id.empty() && seen.insert(id).second) commits.push_back(std::move(id));
  }
  CommitChecker checker(*ws.repo(), git, ws.settings().store.max_blob_size);
  for (const std::string& commit : commits) {
    checker.check(commit, report.references, report.problems);
    ++report.commits;
  }
  return report;
}

}  // namespace jpblob
