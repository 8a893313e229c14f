#include "pre_receive.hpp"

#include <sstream>

#include "core/base/error.hpp"
#include "core/base/trace.hpp"
#include "core/git/git_cli.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

namespace fs = std::filesystem;

PushCheckReport run_pre_receive_hook(const fs::path& cwd, const std::string& updates) {
  // The settings of the server's config: jpblob.minSize where a pushed
  // commit has no .jpblobconfig of its own.
  const Workspace ws = Workspace::open(cwd, std::nullopt, SharedSettings::Later);
  if (!ws.repo()) throw Error("pre-receive must run in a git repository");
  const GitRepo& repo = *ws.repo();
  const GitCli git(repo.workdir() ? *repo.workdir() : repo.gitdir());
  std::vector<std::string> tips;
  std::istringstream in(updates);
  std::string old_id, new_id, ref;
  while (in >> old_id >> new_id >> ref)
    if (new_id.find_first_not_of('0') != std::string::npos) tips.push_back(new_id);  // not a deletion
  // The refs are not updated before the hook accepts: --all is what the
  // server held before this push.
  PushCheckReport report = check_push(repo, git, ws.settings().store.max_blob_size, ws.settings().min_size, tips, {"--all"});
  trace_push_verdict("pre-receive", tips, report);
  return report;
}

}  // namespace jpblob
