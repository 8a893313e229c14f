#include "installer.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <optional>
#include <sstream>

#include "core/document.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/git_cli.hpp"
#include "core/git_repo.hpp"
#include "core/safe_path.hpp"
#include "core/subprocess.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kHookMarker = "# git-jpblob pre-commit hook";
constexpr const char* kChained = "pre-commit.jpblob-chained";

std::string scope_name(ConfigScope s) {
  switch (s) {
    case ConfigScope::Local: return "local";
    case ConfigScope::System: return "system";
    case ConfigScope::Global: break;
  }
  return "global";
}

using Repo = RepoLayout;

// The repository around cwd, if any, asked of git itself so that
// core.hooksPath and linked worktrees resolve exactly as git resolves them.
std::optional<Repo> find_repo(const fs::path& cwd) { return GitCli(cwd).layout(); }

std::vector<std::pair<std::string, std::string>> config_entries(const fs::path& program) {
  const std::string q = shell_quote(program.string());
  return {{"filter.jpblob.process", q + " filter-process"},
          {"filter.jpblob.clean", q + " clean %f"},
          {"filter.jpblob.smudge", q + " smudge %f"},
          {"filter.jpblob.required", "true"},
          {"diff.jpblob.textconv", q + " textconv"}};
}

std::string hook_text(const fs::path& program) {
  return "#!/bin/sh\n" + std::string(kHookMarker) +
         ": stages the blobs each committed conversation\n"
         "# references and verifies them. `git jpblob uninstall` removes it and puts\n"
         "# back the hook it chained, if any.\n"
         "chained=\"$(dirname \"$0\")/" + kChained + "\"\n"
         "if [ -x \"$chained\" ]; then\n"
         "  \"$chained\" \"$@\" || exit $?\n"
         "fi\n"
         "exec " + shell_quote(program.string()) + " pre-commit\n";
}

std::vector<std::string> split_lines(const std::string& text);

// A hooks folder, every file in it opened without following a link: below
// the work tree when the folder is inside it (core.hooksPath=.githooks, or
// .git/hooks), so a link anywhere on the way is refused.
class HookFolder {
 public:
  HookFolder(const fs::path& hooks, const fs::path& top)
      : path_(hooks), location_(locate(hooks, top)) {}

  const fs::path& path() const { return path_; }
  bool exists(const std::string& name) const { return location_.base.lstat(location_.rel / name).has_value(); }

  // The file's text when it is a regular file; nullopt otherwise.
  std::optional<std::string> read(const std::string& name) const {
    const auto st = location_.base.lstat(location_.rel / name);
    if (!st || !S_ISREG(st->st_mode)) return std::nullopt;
    return location_.base.read(location_.rel / name, 1 << 20);
  }

  bool is_ours(const std::string& name) const {
    const auto text = read(name);
    if (!text) return false;
    const auto lines = split_lines(*text);
    for (std::size_t i = 0; i < std::min<std::size_t>(3, lines.size()); ++i)
      if (lines[i].starts_with(kHookMarker)) return true;
    return false;
  }

  void write_hook(const std::string& name, const std::string& text) const {
    location_.base.write_atomic(location_.rel / name, text, 0755);
  }
  void rename(const std::string& from, const std::string& to) const {
    location_.base.rename(location_.rel / from, location_.rel / to);
  }
  void remove(const std::string& name) const { location_.base.remove(location_.rel / name); }

 private:
  static SafeLocation locate(const fs::path& hooks, const fs::path& top) {
    // A folder outside the work tree (a shared core.hooksPath) is the
    // user's own; its parent is made when missing, as git would need.
    std::error_code ec;
    if (hooks.lexically_relative(top).empty() || *hooks.lexically_relative(top).begin() == "..")
      fs::create_directories(hooks.parent_path(), ec);
    return locate_safely(hooks, top);
  }

  fs::path path_;
  SafeLocation location_;
};

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

}  // namespace

const std::vector<std::string>& attribute_lines() { return document_attribute_lines(); }

std::vector<std::string> install(const fs::path& cwd, const InstallOptions& options) {
  const auto repo = find_repo(cwd);
  if (options.scope == ConfigScope::Local && !repo)
    throw Error("install --local must run inside a git repository", ErrorKind::Usage);

  // Checks first: nothing changes when something is in the way, a link
  // where .gitattributes or a hook would be written included.
  std::optional<HookFolder> hooks;
  std::optional<SafeDir> top;
  std::string attributes;
  bool chain = false;
  if (repo) {
    top = SafeDir::open(repo->top);
    attributes = top->read(".gitattributes").value_or("");
    hooks.emplace(repo->hooks, repo->top);
    const fs::path hook = hooks->path() / "pre-commit";
    if (hooks->exists("pre-commit") && !hooks->is_ours("pre-commit")) {
      if (hooks->exists(kChained))
        throw Error("cannot chain " + hook.string() + ": " + (hooks->path() / kChained).string() +
                    " already exists; merge the two hooks by hand, then run install again");
      if (!options.force)
        throw Error("refusing to replace " + hook.string() +
                    ", which git-jpblob did not write. Run `git jpblob install --force` to keep it as " +
                    kChained + " and run it before git-jpblob's check, or chain it by hand: add the line `" +
                    shell_quote(options.program.string()) + " pre-commit || exit 1` to it");
      chain = true;
    }
  }

  std::vector<std::string> done;
  // 1. git config.
  const fs::path config_cwd = repo ? repo->top : cwd;
  bool config_changed = false;
  const GitCli config(config_cwd);
  for (const auto& [key, value] : config_entries(options.program)) {
    if (config.config_get(key, options.scope) == value) continue;
    config.config_set(key, value, options.scope);
    config_changed = true;
  }
  if (config_changed) done.push_back("Set the jpblob filter and diff driver in the " +
                                     scope_name(options.scope) + " git config.");
  if (!repo) return done.empty() ? std::vector<std::string>{"Nothing to change."} : done;

  // 2. .gitattributes.
  const auto existing = split_lines(attributes);
  std::size_t added = 0;
  for (const auto& line : attribute_lines()) {
    if (std::find(existing.begin(), existing.end(), line) != existing.end()) continue;
    if (!attributes.empty() && attributes.back() != '\n') attributes.push_back('\n');
    attributes += line + "\n";
    ++added;
  }
  if (added) {
    top->write_atomic(".gitattributes", attributes);
    done.push_back("Added " + std::to_string(added) + " line(s) to .gitattributes.");
  }

  // 3. The hook.
  const std::string wanted = hook_text(options.program);
  if (chain) {
    hooks->rename("pre-commit", kChained);
    done.push_back("Kept the existing pre-commit hook as " + (hooks->path() / kChained).string() +
                   "; it runs before git-jpblob's check.");
  }
  if (hooks->read("pre-commit") != wanted) {
    hooks->write_hook("pre-commit", wanted);
    done.push_back("Installed the pre-commit hook in " + hooks->path().string() + ".");
  }
  return done.empty() ? std::vector<std::string>{"Nothing to change."} : done;
}

// The hook git would run, as libgit2 reads the config, when that is
// git-jpblob's: the common case, answered without starting git.
bool our_hook_in_place(const GitRepo* repo) {
  if (!repo || !repo->workdir()) return false;
  fs::path hooks;
  if (auto path = repo->config("core.hooksPath")) {
    hooks = *repo->workdir() / *path;
  } else {
    hooks = repo->commondir() / "hooks";
  }
  return HookFolder(hooks, *repo->workdir()).is_ours("pre-commit");
}

std::optional<std::string> ensure_hook(const fs::path& cwd, const GitRepo* repo, const fs::path& program) {
  try {
    if (our_hook_in_place(repo)) return std::nullopt;
    const auto layout = GitCli(cwd).layout();
    if (!layout) return std::nullopt;  // not in a work tree: nothing to protect
    const fs::path& top = layout->top;
    const fs::path& hooks = layout->hooks;
    const fs::path& common = layout->common_dir;
    const fs::path hook = hooks / "pre-commit";
    const HookFolder folder(hooks, top);
    if (folder.is_ours("pre-commit")) return std::nullopt;
    if (GitCli(top).config_get("jpblob.autoInstallHook", std::nullopt, "bool") == "false") return std::nullopt;
    if (folder.exists("pre-commit"))
      return "warning: " + hook.string() +
             " is not git-jpblob's, so commits here are not checked for their blobs; run "
             "`git jpblob install --force` to chain it";
    // A hooks folder outside this repository (core.hooksPath shared by
    // many) is the user's to change, not a filter's.
    auto inside = [&](const fs::path& dir) {
      const auto rel = hooks.lexically_relative(dir);
      return !rel.empty() && *rel.begin() != "..";
    };
    if (!inside(top) && !inside(common))
      return "warning: no pre-commit hook in " + hooks.string() +
             " (core.hooksPath, outside this repository), so commits here are not checked for their "
             "blobs; run `git jpblob install` to put one there";
    folder.write_hook("pre-commit", hook_text(program));
    return "installed the pre-commit hook in " + hooks.string() +
           " (it stages the blobs each commit references)";
  } catch (const std::exception& e) {
    return std::string("warning: cannot install the pre-commit hook: ") + e.what();
  }
}

std::vector<std::string> uninstall(const fs::path& cwd, const InstallOptions& options) {
  const auto repo = find_repo(cwd);
  if (options.scope == ConfigScope::Local && !repo)
    throw Error("uninstall --local must run inside a git repository", ErrorKind::Usage);
  std::vector<std::string> done;
  const fs::path config_cwd = repo ? repo->top : cwd;
  bool config_changed = false;
  const GitCli config(config_cwd);
  for (const auto& [key, value] : config_entries(options.program))
    if (config.config_unset(key, options.scope)) config_changed = true;
  // Drop the section headers git leaves behind, but only when empty.
  for (const char* section : {"filter.jpblob", "diff.jpblob"}) config.config_remove_empty_section(section, options.scope);
  if (config_changed) done.push_back("Removed the jpblob filter and diff driver from the " +
                                     scope_name(options.scope) + " git config.");
  if (!repo) return done.empty() ? std::vector<std::string>{"Nothing to change."} : done;

  const SafeDir top = SafeDir::open(repo->top);
  const std::string text = top.read(".gitattributes").value_or("");
  std::string kept;
  std::size_t removed = 0;
  for (const auto& line : split_lines(text)) {
    if (std::find(attribute_lines().begin(), attribute_lines().end(), line) != attribute_lines().end()) {
      ++removed;
      continue;
    }
    kept += line + "\n";
  }
  if (removed) {
    if (kept.find_first_not_of(" \t\n") == std::string::npos) top.remove(".gitattributes");
    else top.write_atomic(".gitattributes", kept);
    done.push_back("Removed " + std::to_string(removed) + " line(s) from .gitattributes.");
  }

  const HookFolder hooks(repo->hooks, repo->top);
  if (hooks.is_ours("pre-commit")) {
    hooks.remove("pre-commit");
    done.push_back("Removed the pre-commit hook from " + repo->hooks.string() + ".");
    if (hooks.exists(kChained)) {
      hooks.rename(kChained, "pre-commit");
      done.push_back("Put the chained pre-commit hook back in place.");
    }
  }
  return done.empty() ? std::vector<std::string>{"Nothing to change."} : done;
}

}  // namespace jpblob
