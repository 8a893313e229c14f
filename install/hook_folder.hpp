// The hooks git-jpblob installs (pre-commit, pre-push) and the folder git
// runs them from, every file in it opened without following a link
// (core/base/safe_path): below the work tree when the folder is inside it
// (core.hooksPath=.githooks, or .git/hooks), so a link anywhere on the way
// is refused.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/base/safe_path.hpp"
#include "core/git/git_cli.hpp"

namespace jpblob {

// The hooks install writes, in the order it writes them.
const std::vector<std::string>& our_hooks();

// The name the config and the hooks run git-jpblob by, found on PATH as
// git-lfs's hooks find `git-lfs`: an upgrade or a new prefix then changes
// nothing that install wrote.
inline constexpr const char* kProgramName = "git-jpblob";

// The script for `hook`: fails with one line naming the fix when
// git-jpblob is not on PATH, runs the hook it chained (kept as
// chained_name(hook)) first, with the same arguments and standard input,
// then `git-jpblob <hook>`. Hooks an earlier version wrote named the
// absolute path instead; is_ours() knows them by their marker all the same.
std::string hook_text(const std::string& hook);
std::string chained_name(const std::string& hook);
// True when `text` is git-lfs's own `hook` (what `git lfs install` and its
// filter write): chaining it keeps git-lfs's work and adds git-jpblob's.
bool is_git_lfs_hook(const std::string& text, const std::string& hook);

// The hooks folder, relative to the top, when the repository tracks files
// in it (core.hooksPath=.githooks, say): what is written there is
// committed, and a hook holding this machine's path must not be.
std::optional<std::string> tracked_hooks_folder(const RepoLayout& repo);
// What to do instead of writing into a tracked hooks folder.
std::string tracked_hooks_advice(const std::string& folder);
// True when `hooks` lies outside the work tree at `top` and the git folder
// at `common` (core.hooksPath naming a folder many repositories share).
bool shared_hooks_folder(const RepoLayout& repo);

class HookFolder;
// True when git-jpblob's pre-push hook stands in `folder` where git-lfs's
// own would, and nothing else there runs `git lfs pre-push`. git-lfs
// writes its hooks only where none is: a repository that took up git-lfs
// after git-jpblob (its filter ran there, or `git lfs install`, which then
// only prints "Hook already exists") would push commits whose LFS objects
// never reach the server. `uses_git_lfs`: git-lfs has set this repository
// up (it writes lfs.repositoryformatversion to its config when it does).
// `running`: the file of `folder` this run is, "pre-push" or, where the
// pre-commit framework moved git-jpblob's hook aside and runs it first,
// "pre-push.legacy" (install/hook_managers: framework_push_run).
bool owes_git_lfs_pre_push(const HookFolder& folder, bool uses_git_lfs, const std::string& running);

class HookFolder {
 public:
  // `hooks` as git resolves it; `top` the work tree's top. A folder
  // outside the work tree (a shared core.hooksPath) gets its parent made
  // when missing, as git would need.
  HookFolder(const std::filesystem::path& hooks, const std::filesystem::path& top);

  const std::filesystem::path& path() const { return path_; }
  bool exists(const std::string& name) const;
  // A regular file its owner may run (as the pre-commit framework asks of
  // a <hook>.legacy before it runs one).
  bool runnable(const std::string& name) const;
  // The file's text when it is a regular file; nullopt otherwise.
  std::optional<std::string> read(const std::string& name) const;
  // True when `hook` is there and git-jpblob wrote it; with `file`, when
  // git-jpblob's `hook` is there under that name (a hook manager's
  // <hook>.legacy).
  bool is_ours(const std::string& hook, const std::string& file = "") const;
  void write_hook(const std::string& name, const std::string& text) const;
  void rename(const std::string& from, const std::string& to) const;
  void remove(const std::string& name) const;

 private:
  std::filesystem::path path_;
  SafeLocation location_;
};

}  // namespace jpblob
