// `git-jpblob post-checkout <previous> <new> <branch?>`: makes a new clone
// of a repository that holds conversations lean (docs/lean.md,
// "Lean work trees"), with no setting outside that clone. The filter
// installs this hook during a clone's first checkout, when it first runs
// there (install/hook_guard: ensure_hook), and git runs it after that
// checkout with the null id as the previous HEAD; `git worktree add` does
// the same for a new worktree. Any other checkout leaves it with nothing
// to do: a lean tree's sparse patterns keep git from writing blob files.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace jpblob {

// The line to print, or nullopt when nothing changed: `previous` is not the
// null id, the work tree is lean already, tracks no blob, or keeps its store
// by choice (lean_refused). Never throws: a hook failing after a clone's
// checkout would make `git clone` fail with every file written; a failure
// is a warning line instead.
std::optional<std::string> run_post_checkout_hook(const std::filesystem::path& cwd, const std::string& previous);

}  // namespace jpblob
