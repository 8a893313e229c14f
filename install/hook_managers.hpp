// The hook managers a team may run (docs/FORMAT.md, "Hook managers"): the
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

// True when this run of git-jpblob's `hook` (pre-commit, pre-push) in the
// repository around `cwd` is the framework's "legacy" run: `pre-commit
// install` over git-jpblob's own hook moves it to <hook>.legacy and runs it
// before its configuration, which runs git-jpblob too. The check then runs
// once, from the configuration (the framework sets PRE_COMMIT=1 there).
// False whenever anything is unclear: the check runs.
bool legacy_run_under_framework(const std::filesystem::path& cwd, const std::string& hook);

// The file of git's hooks folder this run of `hook` comes from: <hook>, or
// <hook>.legacy when the pre-commit framework runs the hook it moved aside
// (it sets PRE_COMMIT_RUNNING_LEGACY=1 for that run, and for no other).
std::string running_hook_file(const std::string& hook);

}  // namespace jpblob
