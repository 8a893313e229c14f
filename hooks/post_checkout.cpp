#include "hooks/post_checkout.hpp"

#include <algorithm>
#include <exception>

#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"
#include "core/lean/lean_tree.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

std::optional<std::string> run_post_checkout_hook(const std::filesystem::path& cwd, const std::string& previous) {
  // A clone's checkout and `git worktree add` come from nothing; a
  // checkout of one branch from another moves a tree that is as it was.
  if (previous.empty() || std::any_of(previous.begin(), previous.end(), [](char c) { return c != '0'; }))
    return std::nullopt;
  try {
    const auto repo = GitRepo::open(cwd);
    if (!repo || !repo->workdir() || is_lean(*repo)) return std::nullopt;
    const GitCli git(*repo->workdir());
    if (!tracks_blobs(git) || lean_refused(git)) return std::nullopt;
    const auto layout = git.layout();
    if (!layout) return std::nullopt;
    const Workspace ws = Workspace::open(layout->top, std::nullopt, SharedSettings::Later);
    make_lean(*layout, git, ws.lean_parts());
    return "this clone keeps its committed blobs in git's objects only (a lean work tree); "
           "`git jpblob install --no-lean` checks them out";
  } catch (const std::exception& e) {
    return std::string("warning: cannot make this clone lean: ") + e.what() +
           "; its committed blobs stay checked out (`git jpblob install --lean` tries again)";
  }
}

}  // namespace jpblob
