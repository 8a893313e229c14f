#include "installer.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "core/documents/document.hpp"
#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/git/config_reader.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"
#include "core/lean/lean_tree.hpp"
#include "core/workspace/workspace.hpp"
#include "core/base/safe_path.hpp"
#include "core/git/subprocess.hpp"
#include "hook_folder.hpp"
#include "install_lean.hpp"
#include "install_parts.hpp"
#include "adoption.hpp"
#include "hook_managers.hpp"

namespace jpblob {

namespace fs = std::filesystem;

using Repo = RepoLayout;

std::optional<Repo> find_repo(const fs::path& cwd) { return GitCli(cwd).layout(); }

// Each names git-jpblob, found on PATH (hook_folder.hpp, kProgramName).
std::vector<std::pair<std::string, std::string>> config_entries() {
  const std::string q = kProgramName;
  return {{"filter.jpblob.process", q + " filter-process"},
          {"filter.jpblob.clean", q + " clean %f"},
          {"filter.jpblob.smudge", q + " smudge %f"},
          {"filter.jpblob.required", "true"},
          {"diff.jpblob.textconv", q + " textconv"},
          {"merge.jpblob.name", "JP conversations and blobs (git-jpblob)"},
          {"merge.jpblob.driver", q + " merge %O %A %B %L %P"}};
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\n', start);
    const std::size_t next = end == std::string::npos ? text.size() : end + 1;
    lines.push_back(text.substr(start, next - start));
    start = next;
  }
  return lines;
}

std::string without_newline(const std::string& line) {
  return line.ends_with('\n') ? line.substr(0, line.size() - 1) : line;
}

namespace {

bool contains(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

}  // namespace

const std::vector<std::string>& attribute_lines() { return document_attribute_lines(); }

const std::vector<std::pair<std::string, std::string>>& legacy_attribute_lines() {
  static const std::vector<std::pair<std::string, std::string>> lines = [] {
    // Lines earlier versions wrote, each with the line that replaces it
    // (attribute_lines(): conversations, sessions, Claude Code transcripts,
    // and last the store).
    const std::string store(kWorkTreeStore);
    const auto& now = attribute_lines();
    return std::vector<std::pair<std::string, std::string>>{
        {".jp/conversations/**/events.json filter=jpblob diff=jpblob -text", now[0]},
        {".jp/sessions/**/*.jsonl filter=jpblob -text", now[1]},
        {store + "/** -text diff=jpblob linguist-generated", now.back()},
        {store + "/** -text diff=jpblob", now.back()},
        {store + "/** -text -diff", now.back()}};
  }();
  return lines;
}

namespace {

// install without its lean work tree part: config, attributes, hooks.
std::vector<std::string> install_setup(const fs::path& cwd, const std::optional<Repo>& repo,
                                       const InstallOptions& options);

}  // namespace

bool is_our_attribute_line(const std::string& line) {
  if (contains(attribute_lines(), line)) return true;
  for (const auto& legacy : legacy_attribute_lines())
    if (legacy.first == line) return true;
  return false;
}

std::vector<std::string> install(const fs::path& cwd, const InstallOptions& options) {
  const auto repo = find_repo(cwd);
  // A repository git-jpblob cannot read: nothing is written, and the
  // filter and hooks a global install set up step aside there.
  if (repo) try {
      GitRepo::open(cwd);
    } catch (const UnsupportedRepository& e) {
      throw Error(std::string(e.what()) + "; nothing was installed");
    }
  std::vector<std::string> done = install_setup(cwd, repo, options);
  auto more = install_lean(cwd, repo, options);
  // The documents already here, once the filter and the tree are set up
  // (install/adoption): JP's form back after a clone made without
  // git-jpblob, the next step where the committed ones are inline.
  if (repo) {
    const auto after = documents_after_install(*repo);
    more.insert(more.end(), after.begin(), after.end());
  }
  if (done.size() == 1 && done[0] == "Nothing to change." && !more.empty()) done.clear();
  done.insert(done.end(), more.begin(), more.end());
  return done;
}

namespace {

// What install found before changing anything.
struct InstallChecks {
  SafeDir top;
  std::string attributes;  // .gitattributes as it stands
  HookFolder hooks;
  std::vector<std::string> to_chain, left_alone;
  std::optional<std::string> tracked_hooks;
  std::optional<ManagedHooks> managed;  // a hook manager owns the folder: never written, even with --force
};

// Checks first: nothing changes when something is in the way, a link
// where .gitattributes or a hook would be written included. Throws Error
// for what is in the way.
InstallChecks check_before_install(const Repo& repo, const InstallOptions& options) {
  SafeDir top = SafeDir::open(repo.top);
  std::string attributes = top.read(".gitattributes").value_or("");
  InstallChecks checks{std::move(top), std::move(attributes), HookFolder(repo.hooks, repo.top), {}, {}, {}, {}};
  const HookFolder& hooks = checks.hooks;
  checks.managed = managed_hooks(repo, hooks);
  if (!options.force) checks.tracked_hooks = tracked_hooks_folder(repo);
  for (const std::string& name : our_hooks()) {
    if (checks.tracked_hooks || checks.managed) break;
    const fs::path hook = hooks.path() / name;
    if (!hooks.exists(name) || hooks.is_ours(name)) continue;
    if (hooks.exists(chained_name(name)))
      throw Error("cannot chain " + hook.string() + ": " + (hooks.path() / chained_name(name)).string() +
                  " already exists; merge the two hooks by hand, then run install again");
    // git-lfs's own hook (`git lfs install` before git-jpblob's) is chained
    // unasked, as the filter chains it in a clone: left in place, it would
    // run without git-jpblob's check, and a commit made past the pre-commit
    // hook would be pushed unchecked.
    if (options.force || is_git_lfs_hook(hooks.read(name).value_or(""), name)) {
      checks.to_chain.push_back(name);
    } else if (name == "pre-commit") {
      throw Error("refusing to replace " + hook.string() +
                  ", which git-jpblob did not write. Run `git jpblob install --force` to keep it as " +
                  chained_name(name) + " and run it before git-jpblob's check, or chain it by hand: add the line `" +
                  kProgramName + " pre-commit || exit 1` to it");
    } else {
      // The second line only: keep the user's hook (git-lfs writes a
      // pre-push hook too) and say how to add ours.
      checks.left_alone.push_back(name);
    }
  }
  return checks;
}

// 1. git config, run from `config_cwd`.
void set_git_config(const fs::path& config_cwd, const InstallOptions& options, std::vector<std::string>& done) {
  bool config_changed = false, config_upgraded = false;
  const GitCli config(config_cwd);
  const ConfigReader current = ConfigReader::through(config, options.scope);
  for (const auto& [key, value] : config_entries()) {
    const auto old = current.get(key);
    if (old == value) continue;
    // An earlier install named this machine's absolute path.
    if (old && value.starts_with(kProgramName) && !old->starts_with(kProgramName)) config_upgraded = true;
    config.config_set(key, value, options.scope);
    config_changed = true;
  }
  if (config_upgraded) {
    done.push_back("Updated the jpblob filter, diff and merge drivers in the " + config_scope_name(options.scope) +
                   " git config: they run git-jpblob from PATH now, not from the absolute path an earlier "
                   "install wrote.");
  } else if (config_changed) {
    done.push_back("Set the jpblob filter and diff driver in the " + config_scope_name(options.scope) +
                   " git config.");
  }
}

// 2. .gitattributes.
void add_attribute_lines(const Repo& repo, const SafeDir& top, const std::string& attributes,
                         std::vector<std::string>& done) {
  auto lines = split_lines(attributes);
  std::vector<std::string> present;
  for (const auto& line : lines) present.push_back(without_newline(line));
  std::size_t added = 0, upgraded = 0;
  // An older form of a line becomes the new one where it stands.
  for (auto& line : lines)
    for (const auto& [old_line, new_line] : legacy_attribute_lines())
      if (without_newline(line) == old_line && !contains(present, new_line)) {
        line = new_line + (line.ends_with('\n') ? "\n" : "");
        present.push_back(new_line);
        ++upgraded;
      }
  bool newline_added = false;
  for (const auto& line : attribute_lines()) {
    if (contains(present, line)) continue;
    if (!lines.empty() && !lines.back().ends_with('\n')) {
      lines.back().push_back('\n');
      newline_added = true;
    }
    lines.push_back(line + "\n");
    present.push_back(line);
    ++added;
  }
  if (!added && !upgraded) return;
  std::string text;
  for (const auto& line : lines) text += line;
  if (newline_added) GitCli(repo.top).config_set(kNewlineKey, "true", ConfigScope::Local);
  top.write_atomic(".gitattributes", text);
  if (added) done.push_back("Added " + std::to_string(added) + " line(s) to .gitattributes.");
  if (upgraded) done.push_back("Updated " + std::to_string(upgraded) + " line(s) of .gitattributes.");
}

// 3, where the pre-commit framework owns the hooks folder: git-jpblob's
// hooks where the framework runs them first, with git's own input
// (framework_slot), so that its check sees every ref of a push; the
// framework's own scripts stay.
void write_framework_hooks(const InstallChecks& checks, std::vector<std::string>& done) {
  const HookFolder& hooks = checks.hooks;
  const ManagedHooks& managed = *checks.managed;
  done.push_back(managed.runs_jpblob ? "Left the hooks to " + managed.name + ", whose configuration runs git-jpblob's check."
                 : framework_slot(hooks, "pre-commit") ? "Left the hooks to " + managed.name + "."
                                                        : "Left the hooks to " + managed.name + ": " + managed.advice + ".");
  for (const std::string& name : our_hooks()) {
    const auto slot = framework_slot(hooks, name);
    if (!slot) {
      done.push_back("Left " + (hooks.path() / (name + ".legacy")).string() + " alone: git-jpblob did not write "
                     "it. Add `" + kProgramName + " " + name + " \"$@\"` to it.");
      continue;
    }
    if (hooks.read(*slot) == hook_text(name)) continue;
    hooks.write_hook(*slot, hook_text(name));
    done.push_back("Installed the " + name + " hook in " + hooks.path().string() + " as " + *slot +
                   (*slot == name ? "." : ", which the framework runs before its configuration, with git's input."));
  }
}

// 3. The hooks, as check_before_install found them.
void write_hooks(const InstallChecks& checks, std::vector<std::string>& done) {
  const HookFolder& hooks = checks.hooks;
  if (const auto& managed = checks.managed) {
    if (managed->manager == HookManager::PreCommit) {
      write_framework_hooks(checks, done);
      return;
    }
    done.push_back(managed->runs_jpblob ? "Left the hooks to " + managed->name +
                                              ", whose configuration runs git-jpblob's check."
                                        : "Left the hooks to " + managed->name + ": " + managed->advice + ".");
    return;
  }
  if (const auto& tracked_hooks = checks.tracked_hooks) {
    done.push_back("Left " + *tracked_hooks + " alone: " + tracked_hooks_advice(*tracked_hooks) +
                   ". (`git jpblob install --force` writes there all the same.)");
    return;
  }
  for (const std::string& name : our_hooks()) {
    if (contains(checks.left_alone, name)) {
      done.push_back("Left the " + name + " hook in " + hooks.path().string() +
                     " alone: git-jpblob did not write it. Run `git jpblob install --force` to chain it, or add `" +
                     kProgramName + " " + name + " \"$@\"` to it.");
      continue;
    }
    if (contains(checks.to_chain, name)) {
      hooks.rename(name, chained_name(name));
      done.push_back("Kept the existing " + name + " hook as " + (hooks.path() / chained_name(name)).string() +
                     "; it runs before git-jpblob's check.");
    }
    const std::string wanted = hook_text(name);
    const auto current = hooks.read(name);
    if (current != wanted) {
      // Ours (is_ours above), written by an earlier version: replaced in place.
      const bool upgrade = current.has_value();
      hooks.write_hook(name, wanted);
      done.push_back((upgrade ? "Updated the " : "Installed the ") + name + " hook in " + hooks.path().string() +
                     (upgrade ? " (it runs git-jpblob from PATH now)." : "."));
    }
  }
}

std::vector<std::string> install_setup(const fs::path& cwd, const std::optional<Repo>& repo,
                                       const InstallOptions& options) {
  if (options.scope == ConfigScope::Local && !repo)
    throw Error("install --local must run inside a git repository");
  std::optional<InstallChecks> checks;
  if (repo) checks.emplace(check_before_install(*repo, options));
  std::vector<std::string> done;
  set_git_config(repo ? repo->top : cwd, options, done);
  if (checks) {
    add_attribute_lines(*repo, checks->top, checks->attributes, done);
    write_hooks(*checks, done);
    forget_uninstall_record(*repo, done);
  }
  return done.empty() ? std::vector<std::string>{"Nothing to change."} : done;
}

}  // namespace

std::optional<std::string> path_warning(const fs::path& program) {
  const auto found = find_on_path(kProgramName);
  if (!found)
    return "git-jpblob is not on PATH, and git runs the filter and the hooks by that name: put " +
           program.parent_path().string() + " on PATH (or install git-jpblob where PATH leads)";
  std::error_code ec;
  if (fs::equivalent(*found, program, ec)) return std::nullopt;
  return "the first git-jpblob on PATH is " + found->string() + ", not this one (" + program.string() +
         "): git will run that one; put " + program.parent_path().string() + " ahead of it on PATH, or remove it";
}

}  // namespace jpblob
