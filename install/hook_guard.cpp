#include "hook_guard.hpp"

#include "core/base/error.hpp"
#include "core/git/config_reader.hpp"
#include "core/git/git_cli.hpp"
#include "hook_folder.hpp"
#include "hook_managers.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

// git-jpblob's `name` hook stands in `folder`: the file itself or, where
// the pre-commit framework owns the folder, its .legacy (framework_slot).
bool stands(const HookFolder& folder, const std::string& name) {
  return folder.is_ours(name) || folder.is_ours(name, name + ".legacy");
}

// Nothing for ensure_hook to do in `folder`: git-jpblob's pre-commit
// stands there, and each other hook is git-jpblob's or one of someone
// else's it leaves alone: not git-lfs's own (chained), nor the framework's
// with its .legacy place free.
bool hooks_complete(const HookFolder& folder) {
  if (!stands(folder, "pre-commit")) return false;
  for (const std::string& name : our_hooks()) {
    if (!folder.exists(name)) return false;
    if (stands(folder, name)) continue;
    if (framework_slot(folder, name)) return false;
    if (is_git_lfs_hook(folder.read(name).value_or(""), name) && !folder.exists(chained_name(name))) return false;
  }
  return true;
}

}  // namespace

// The hook git would run, as libgit2 reads the config, when that is
// git-jpblob's: the common case, answered without starting git.
bool our_hook_in_place(const GitRepo* repo) {
  if (!repo || !repo->workdir()) return false;
  fs::path hooks;
  if (auto path = ConfigReader::of(repo).get("core.hooksPath")) {
    hooks = *repo->workdir() / *path;
  } else {
    hooks = repo->commondir() / "hooks";
  }
  return hooks_complete(HookFolder(hooks, *repo->workdir()));
}

namespace {

// What to do where git runs the hooks of a folder outside the repository,
// which other repositories share and the filter leaves alone.
std::string shared_folder_advice(const HookFolder& folder) {
  const std::string path = folder.path().string();
  if (!folder.exists("pre-commit"))
    return "git runs the hooks of " + path + " (core.hooksPath, outside this repository), which holds no "
           "pre-commit hook: run `git jpblob install`, which writes git-jpblob's hooks there";
  return "git runs the hooks of " + path + " (core.hooksPath, outside this repository, which other "
         "repositories share), and its pre-commit hook does not run git-jpblob's check: add the line `git jpblob "
         "pre-commit || exit 1` to " + path + "/pre-commit and `git jpblob pre-push \"$@\" || exit 1` to " + path +
         "/pre-push, or run `git jpblob install --force`, which keeps the hooks there as <hook>.jpblob-chained "
         "and runs them before git-jpblob's";
}

std::string foreign_hook_advice(const HookFolder& folder) {
  return (folder.path() / "pre-commit").string() + " is not git-jpblob's and does not run its check: run `git "
         "jpblob install --force`, which keeps it as pre-commit.jpblob-chained and runs it first, or add the line "
         "`git jpblob pre-commit || exit 1` to it";
}

// Where the pre-commit framework owns the folder: git-jpblob's hooks in
// the places it runs them first (framework_slot), where they are free.
std::vector<std::string> install_framework_slots(const HookFolder& folder) {
  std::vector<std::string> installed;
  for (const std::string& name : our_hooks()) {
    const auto slot = framework_slot(folder, name);
    if (!slot || folder.exists(*slot)) continue;
    folder.write_hook(*slot, hook_text(name));
    installed.push_back(*slot);
  }
  return installed;
}

// Each hook git-jpblob lacks in a folder of the repository's own: a hook of
// someone else's is left alone, except git-lfs's own (its filter writes
// them during the same clone, and .jp/blobs may be in git-lfs), which is
// chained, as `install` chains it.
std::vector<std::string> install_hooks(const HookFolder& folder) {
  std::vector<std::string> installed;
  for (const std::string& name : our_hooks()) {
    if (folder.exists(name)) {
      if (folder.is_ours(name) || !is_git_lfs_hook(folder.read(name).value_or(""), name) ||
          folder.exists(chained_name(name)))
        continue;
      folder.rename(name, chained_name(name));
    }
    folder.write_hook(name, hook_text(name));
    installed.push_back(name);
  }
  return installed;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out = names[0];
  for (std::size_t i = 1; i < names.size(); ++i) out += (i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

}  // namespace

std::optional<std::string> ensure_hook(const fs::path& cwd, const GitRepo* repo) {
  try {
    if (our_hook_in_place(repo)) return std::nullopt;
    const auto layout = GitCli(cwd).layout();
    if (!layout) return std::nullopt;  // not in a work tree: nothing to protect
    const HookFolder folder(layout->hooks, layout->top);
    if (hooks_complete(folder)) return std::nullopt;
    if (ConfigReader::through(GitCli(layout->top)).get_bool("jpblob.autoInstallHook") == false) return std::nullopt;
    std::vector<std::string> installed;
    if (auto managed = managed_hooks(*layout, folder)) {
      // husky's and lefthook's folders are their configuration's, whose
      // missing line unchecked_commits names.
      if (managed->manager != HookManager::PreCommit) return std::nullopt;
      installed = install_framework_slots(folder);
    } else if (tracked_hooks_folder(*layout) || shared_hooks_folder(*layout) ||
               (!stands(folder, "pre-commit") && folder.exists("pre-commit"))) {
      // Not the filter's to change: committed, shared, or someone else's
      // pre-commit hook. unchecked_commits says what to do, if anything.
      return std::nullopt;
    } else {
      installed = install_hooks(folder);
    }
    if (installed.empty()) return std::nullopt;
    return "installed the " + joined(installed) + " hook" + (installed.size() > 1 ? "s" : "") + " in " +
           layout->hooks.string() +
           " (commits get their blobs checked and staged, pushes checked, and a clone of conversations "
           "keeps its blobs in git's objects only)";
  } catch (const std::exception& e) {
    return std::string("warning: cannot install the pre-commit hook: ") + e.what();
  }
}

std::optional<std::string> unchecked_commits(const fs::path& cwd, const GitRepo* repo) {
  try {
    if (our_hook_in_place(repo)) return std::nullopt;
    const auto layout = GitCli(cwd).layout();
    if (!layout) return std::nullopt;
    if (ConfigReader::through(GitCli(layout->top)).get_bool("jpblob.autoInstallHook") == false) return std::nullopt;
    const HookFolder folder(layout->hooks, layout->top);
    // git-jpblob's own, or a hook that runs its check (a team's, chained by hand).
    if (stands(folder, "pre-commit") ||
        folder.read("pre-commit").value_or("").find("jpblob pre-commit") != std::string::npos)
      return std::nullopt;
    if (auto managed = managed_hooks(*layout, folder)) {
      if (managed->runs_jpblob) return std::nullopt;
      return managed->advice;
    }
    if (auto tracked = tracked_hooks_folder(*layout)) return tracked_hooks_advice(*tracked);
    if (shared_hooks_folder(*layout)) return shared_folder_advice(folder);
    if (folder.exists("pre-commit")) return foreign_hook_advice(folder);
    return "no pre-commit hook in " + layout->hooks.string() + ": run `git jpblob install`";
  } catch (const std::exception&) {
    return std::nullopt;  // the filter's job comes first
  }
}

}  // namespace jpblob
