// The hook managers a team may run (docs/TEAM.md, "Hook managers"): the
// pre-commit framework, husky and lefthook each own the hooks folder and
// rewrite it (`pre-commit install`, `npm install`, `lefthook install`), so
// git-jpblob never writes its hooks there. Each gets a line in the
// manager's own configuration instead; these functions tell which manager
// owns the folder, whether its configuration already runs git-jpblob, and
// what to add when it does not.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/git/git_cli.hpp"
#include "hook_folder.hpp"

namespace jpblob {

enum class HookManager { PreCommit, Husky, Lefthook };

struct ManagedHooks {
  HookManager manager;
  std::string name;       // "pre-commit (the framework)", "husky", "lefthook"
  bool runs_jpblob;       // its configuration already calls git jpblob pre-commit
  std::string advice;     // what to add, when it does not
};

// The manager owning `folder` (git's hooks folder for `layout`), or nullopt
// when none does. Reads the manager's configuration files at the top of the
// work tree without following a link.
std::optional<ManagedHooks> managed_hooks(const RepoLayout& layout, const HookFolder& folder);

// The file git-jpblob's `hook` goes in, in a hooks folder the pre-commit
// framework owns: beside the framework's own script, <hook>.legacy, the
// place `pre-commit install` keeps a hook that was there before it, runs
// first with git's own arguments and input, and puts back on `pre-commit
// uninstall`; where the framework has no script for `hook`, <hook> itself
// (`pre-commit install --hook-type <hook>` then moves it to .legacy).
// nullopt where a hook of someone else's stands in that place. So the
// check sees every ref of a push, which the framework's configuration
// cannot (FrameworkPush), and runs once (legacy_run_under_framework).
std::optional<std::string> framework_slot(const HookFolder& folder, const std::string& hook);

// True when this run of git-jpblob's pre-commit in the repository around
// `cwd` is the framework's "legacy" run: `pre-commit install` over
// git-jpblob's own hook moves it to pre-commit.legacy and runs it before
// its configuration, which runs git-jpblob too. The check then runs once,
// from the configuration (the framework sets PRE_COMMIT=1 there). False
// whenever anything is unclear: the check runs.
bool legacy_run_under_framework(const std::filesystem::path& cwd, const std::string& hook);

// Where a run of git-jpblob's pre-push stands beside the pre-commit
// framework, which owns the pre-push hook and runs git-jpblob's, moved to
// pre-push.legacy, first. The push is checked in that run, which alone
// has git's arguments and input: the framework hands its configuration one
// ref of the push at most (none for a branch new to the remote), and its
// legacy run is the one that owes git-lfs's pre-push.
enum class FrameworkPush {
  None,         // no framework over git-jpblob's hook: a run like any other
  Legacy,       // the framework's run of pre-push.legacy (PRE_COMMIT_RUNNING_LEGACY=1)
  AfterLegacy,  // its configuration's run on a push (PRE_COMMIT=1), which that run checked
};
FrameworkPush framework_push_run(const std::filesystem::path& cwd);

}  // namespace jpblob
