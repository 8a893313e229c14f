// `git-jpblob post-checkout <previous> <new> <branch?>`: makes a clone of a
// repository that holds conversations lean (docs/lean.md, "Lean work
// trees"), with no setting outside that clone. The filter installs this
// hook during a clone's first checkout, when it first runs there
// (install/hook_guard: ensure_hook), and git runs it after that checkout; `git
// worktree add` does the same for a new worktree. A clone made with
// `--no-checkout` (as `git submodule update` makes one) gets it at its
// first `git checkout`, whose previous HEAD is not the null id but the
// commit the clone set: so any checkout that leaves a tree not lean
// while it tracks blobs makes it lean, as the pre-commit hook does at a
// commit; not during a rebase, which goes on with the index it holds in
// memory after the hook (docs/lean.md). A lean tree's sparse patterns keep
// git from writing blob files, so on every later checkout it has nothing
// to do.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace jpblob {

// The line to print, or nullopt when nothing changed: the work tree is
// lean already, a rebase is under way, it tracks no blob, or keeps its
// store by choice (lean_refused). Never throws: a hook failing after a clone's checkout
// would make `git clone` fail with every file written; a failure is a
// warning line instead.
std::optional<std::string> run_post_checkout_hook(const std::filesystem::path& cwd);

}  // namespace jpblob
