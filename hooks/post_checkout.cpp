#include "hooks/post_checkout.hpp"

#include <exception>

#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"
#include "core/lean/lean_tree.hpp"
#include "core/merge/sequence_record.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

std::optional<std::string> run_post_checkout_hook(const std::filesystem::path& cwd) {
  // Any checkout, not only one from nothing (a clone's, `git worktree add`,
  // whose previous HEAD is the null id): `git clone --no-checkout` then
  // `git checkout`, which is how `git submodule update` clones, comes from
  // the commit the clone set, and a checkout may bring a clone's first
  // conversations. A lean tree stops at the first question, read in-process.
  try {
    const auto repo = GitRepo::open(cwd);
    if (!repo || !repo->workdir() || is_lean(*repo)) return std::nullopt;
    // A rebase runs the hook after checking out the commit it replays onto,
    // and goes on with the index it holds in memory: the skip-worktree bits
    // written here would be lost, the files gone. The next checkout or
    // commit makes the tree lean.
    if (sequence_folder(repo->gitdir())) return std::nullopt;
    const GitCli git(*repo->workdir());
    // The choice first, one config read: a tree that keeps its store
    // checked out pays it on every checkout.
    if (lean_refused(git) || !tracks_blobs(git)) return std::nullopt;
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
