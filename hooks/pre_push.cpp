#include "pre_push.hpp"

#include <sstream>

#include "core/base/error.hpp"
#include "core/base/trace.hpp"
#include "core/git/config_reader.hpp"
#include "core/git/git_cli.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

bool all_zeros(const std::string& id) { return id.find_first_not_of('0') == std::string::npos; }

}  // namespace

PushCheckReport run_pre_push_hook(const fs::path& cwd, const std::string& remote, const std::string& updates) {
  const Workspace ws = Workspace::open(cwd, std::nullopt, SharedSettings::Later);
  if (!ws.repo()) throw Error("pre-push must run in a git repository");
  const GitRepo& repo = *ws.repo();
  const GitCli git(repo.workdir() ? *repo.workdir() : repo.gitdir());
  std::vector<std::string> tips, have;
  std::istringstream in(updates);
  std::string local_ref, local_id, remote_ref, remote_id;
  while (in >> local_ref >> local_id >> remote_ref >> remote_id) {
    if (!all_zeros(local_id)) tips.push_back(local_id);  // a deletion sends nothing
    if (!all_zeros(remote_id) && repo.has_object(remote_id)) have.push_back(remote_id);
  }
  if (tips.empty()) return {};
  if (!remote.empty() && ConfigReader::of(&repo).get("remote." + remote + ".url")) {
    have.push_back("--remotes=" + remote);
  } else if (!remote.empty()) {
    // A URL: only the remote itself can say what it holds. When it cannot
    // be asked, more commits are checked, never fewer.
    if (auto ids = git.advertised_ids(remote))
      for (std::string& id : *ids)
        if (repo.has_object(id)) have.push_back(std::move(id));
  }
  PushCheckReport report = check_push(repo, git, ws.settings().store.max_blob_size, tips, have);
  trace_push_verdict("pre-push", tips, report);
  return report;
}

}  // namespace jpblob
