// What the filter does about hooks when git starts it (cli/runners:
// filter-process): a fresh clone has no hooks, and without git-jpblob's
// pre-commit check a commit references blobs it does not contain, which
// every teammate's checkout of it then fails on (SPEC §6, "Hook managers").
//
// ensure_hook() puts git-jpblob's hooks where git runs hooks from when that
// folder belongs to the repository, as git-lfs installs its own.
// unchecked_commits() says, when no hook git runs here runs git-jpblob's
// check, why and what to do; the filter then refuses to store a blob the
// index does not hold yet (filter/filter: Filter::refuse_new_blobs), so
// `git add` of new content fails with that reason instead of a commit
// lacking its blob being made in silence. That is the one place git-jpblob
// runs on every commit of new content whatever the hooks: git has no hook
// outside the hooks folder (config-based hooks came after git 2.39), and
// git-jpblob never writes into a folder others share (a machine-wide
// core.hooksPath), rewrite (a hook manager's) or commit (a tracked one).
// The cost is that `git status` and `git diff` of new content fail too
// until the hook is set up, as everything fails while a required filter is
// missing: the message names the folder and the line to add.
// `git config jpblob.autoInstallHook false` turns both off. The one-shot
// filter (`filter.jpblob.clean` set by hand, without `process`) refuses
// nothing: it would ask git for the hooks folder once a file.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "core/git/git_repo.hpp"

namespace jpblob {

// Installs git-jpblob's hooks where git runs hooks from when none is there,
// provided that folder belongs to the repository (its git folder or work
// tree): a core.hooksPath shared by many repositories is left alone. A hook
// git-jpblob did not write is left alone too, except git-lfs's own, which
// is chained (git-lfs writes its hooks in the same clone); where the
// pre-commit framework owns the folder, git-jpblob's hooks go where the
// framework runs them first (install/hook_managers: framework_slot).
// Returns the line to trace (the hooks installed) or to print (a warning:
// they could not be written), if any.
// Never throws: the filter's job comes first. `repo`, when given, is the
// repository already open for `cwd`: the common case (our hooks in place)
// is then answered without starting git.
std::optional<std::string> ensure_hook(const std::filesystem::path& cwd, const GitRepo* repo);

// True when git-jpblob's own hooks are where git runs hooks from, as
// libgit2 reads the config (no git process): the filter process then lets
// clean send an adopting tree's new blobs to the git folder
// (Workspace::send_new_blobs_to_git_folder), for the hook to stage.
bool our_hook_in_place(const GitRepo* repo);

// Why no hook git runs for a commit in the work tree around `cwd` runs
// git-jpblob's check, with what to do about it; nullopt when one does, when
// there is no work tree, or when jpblob.autoInstallHook is false. Never
// throws: in doubt, nullopt.
std::optional<std::string> unchecked_commits(const std::filesystem::path& cwd, const GitRepo* repo);

}  // namespace jpblob
