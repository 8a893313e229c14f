// `git jpblob install` and `git jpblob uninstall` (docs/TEAM.md, "What
// `install` writes", for users).
//
// install writes, in order of least surprise:
// 1. git config at the chosen scope: filter.jpblob.{process,clean,smudge}
//    naming `git-jpblob`, found on PATH as git-lfs's entries find
//    `git-lfs` (an earlier install's absolute path is replaced in place),
//    required = true, diff.jpblob.textconv and merge.jpblob.driver;
// 2. inside a repository, the .gitattributes lines that route conversations
//    to the filter and keep line-ending conversion off the blobs (an older
//    form of a line is upgraded in place); when the file lacked a final
//    newline, the one added is recorded (git config --local
//    jpblob.attributesNewlineAdded) so that uninstall gives back the
//    original bytes;
// 3. inside a repository, the pre-commit hook, in the folder git runs hooks
//    from (core.hooksPath, or the main repository's hooks from a linked
//    worktree). A hook git-jpblob did not write is refused unless --force,
//    which keeps it beside ours as pre-commit.jpblob-chained and runs it
//    first: nothing is ever overwritten. git-lfs's own hooks are chained so
//    unasked (left alone, git-lfs's pre-push would push commits git-jpblob
//    never checked); where the pre-commit framework owns the folder, the
//    hooks go where it runs them first (hook_managers: framework_slot).
// Every check happens before any change, and a second run changes nothing.
// uninstall removes exactly what install added and puts a chained hook back.
//
// Found on PATH (since 2026-11-24): the entries and hooks named the absolute
// path of the binary that ran install before, and a package upgrade or a
// new prefix then broke every `git status` ("git-jpblob: not found") and
// every clone's hooks. A hook checks `command -v` first and fails with one
// line naming the fix; install warns when the first `git-jpblob` on PATH is
// not the binary it runs as, and replaces an earlier absolute entry or hook
// of its own in place (hooks are known by their marker, config entries by
// key, so uninstall takes either).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"

namespace jpblob {

struct InstallOptions {
  ConfigScope scope = ConfigScope::Global;
  bool force = false;
  // Lean work trees (core/lean/lean_tree; install_lean in install_lean.cpp):
  // --lean / --no-lean, for this repository when install runs in one (and
  // no scope was given), else for new clones at `scope`.
  std::optional<bool> lean;
  bool scope_given = false;     // --local, --global or --system was given
  bool clone_template = false;  // --clone-template: init.templateDir, opt-in
  std::filesystem::path program;  // the absolute path of the running git-jpblob (path_warning)
};

// Returns one line per change made ("nothing to change" when none). Throws
// Error when something is in the way, before anything was changed.
std::vector<std::string> install(const std::filesystem::path& cwd, const InstallOptions& options);
std::vector<std::string> uninstall(const std::filesystem::path& cwd, const InstallOptions& options);

// What the filter does about hooks when git starts it: install/hook_guard.

// Why git will not run `program` (the running binary) by the name install
// writes: no git-jpblob on PATH, or another one ahead of it. nullopt when
// `program` is the first git-jpblob on PATH.
std::optional<std::string> path_warning(const std::filesystem::path& program);

// The lines install adds to .gitattributes.
const std::vector<std::string>& attribute_lines();

// Lines earlier versions wrote (or told users to write) in place of one of
// attribute_lines(), with the line that replaces each: install upgrades
// them in place, uninstall removes them.
const std::vector<std::pair<std::string, std::string>>& legacy_attribute_lines();

}  // namespace jpblob
