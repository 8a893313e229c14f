// `git jpblob uninstall` (installer.hpp): what install wrote to config and
// hooks goes, as `git lfs uninstall` does; a lean work tree becomes a plain
// checkout again; and what it removed stays removed.
//
// A committed .gitattributes is the team's (since 2026-11-29): uninstall in
// a teammate's clone used to delete the committed jpblob lines, and a later
// `git commit -a` took git-jpblob away from the whole team. Only lines that
// neither HEAD nor the index holds (those this install added and nobody
// committed) leave; git-lfs's uninstall never touches .gitattributes at all,
// which would leave behind lines that an install just added.
//
// Staying uninstalled: with the filter still set at another scope (a
// global install, and `uninstall --local` here), git still runs the
// filter in this repository, and the filter puts missing hooks back
// (ensure_hook). uninstall then records `jpblob.autoInstallHook=false` in
// the repository's config, the setting a user turns that off with;
// `git jpblob install` here takes it back.
#include <algorithm>

#include "core/base/error.hpp"
#include "core/base/safe_path.hpp"
#include "core/git/config_reader.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"
#include "core/lean/lean_tree.hpp"
#include "hook_folder.hpp"
#include "install_lean.hpp"
#include "install_parts.hpp"
#include "installer.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

constexpr const char* kAutoInstallHook = "jpblob.autoInstallHook";

bool holds_line(const std::optional<std::string>& text, const std::string& line) {
  if (!text) return false;
  for (const auto& l : split_lines(*text))
    if (without_newline(l) == line) return true;
  return false;
}

// .gitattributes without the lines of ours that neither HEAD's nor the
// index's version holds. A line install upgraded from an older one that
// is committed gets that older one back. Counts what left and what stayed.
struct AttributesEdit {
  std::string text;
  std::size_t removed = 0, kept = 0;
  bool changed = false;
  bool ours_at_end = false;  // the file ended with a line of ours that left
};

AttributesEdit without_uncommitted_lines(const std::string& text, const std::optional<std::string>& head,
                                         const std::optional<std::string>& staged) {
  AttributesEdit edit;
  const auto committed = [&](const std::string& line) { return holds_line(head, line) || holds_line(staged, line); };
  for (const auto& line : split_lines(text)) {
    const std::string bare = without_newline(line);
    edit.ours_at_end = false;
    if (!is_our_attribute_line(bare)) {
      edit.text += line;
    } else if (committed(bare)) {
      edit.text += line;
      ++edit.kept;
    } else {
      const auto& legacy = legacy_attribute_lines();
      const auto older = std::find_if(legacy.begin(), legacy.end(), [&](const auto& l) {
        return l.second == bare && committed(l.first) && !holds_line(text, l.first);
      });
      edit.changed = true;
      if (older != legacy.end()) {
        edit.text += older->first + (line.ends_with('\n') ? "\n" : "");
        ++edit.kept;
      } else {
        edit.ours_at_end = true;
        ++edit.removed;
      }
    }
  }
  return edit;
}

// `say_kept`: whether to name the committed lines that stay (not on an
// uninstall that finds nothing else to do).
void remove_attribute_lines(const RepoLayout& repo, bool say_kept, std::vector<std::string>& done) {
  const SafeDir top = SafeDir::open(repo.top);
  const std::string text = top.read(".gitattributes").value_or("");
  const auto git_repo = GitRepo::open(repo.top);
  AttributesEdit edit = without_uncommitted_lines(text, git_repo ? git_repo->read_head(".gitattributes") : std::nullopt,
                                                  git_repo ? git_repo->read_staged(".gitattributes") : std::nullopt);
  const GitCli local(repo.top);
  const bool newline_added = ConfigReader::through(local, ConfigScope::Local).get(kNewlineKey) == "true";
  // The newline install put after the user's last line, when nothing was
  // added after ours since.
  if (edit.removed && newline_added && edit.ours_at_end && edit.text.ends_with('\n')) edit.text.pop_back();
  if (newline_added && local.config_unset(kNewlineKey, ConfigScope::Local))
    local.config_remove_empty_section("jpblob", ConfigScope::Local);
  if (edit.changed) {
    if (edit.text.find_first_not_of(" \t\n") == std::string::npos) top.remove(".gitattributes");
    else top.write_atomic(".gitattributes", edit.text);
  }
  if (edit.removed) done.push_back("Removed " + std::to_string(edit.removed) + " line(s) from .gitattributes.");
  if (edit.kept && say_kept)
    done.push_back("Left the " + std::to_string(edit.kept) + " jpblob line(s) of .gitattributes: the repository "
                   "commits them, for the whole team (`git jpblob export` takes git-jpblob out of the repository "
                   "for everyone).");
}

void remove_hooks(const RepoLayout& repo, std::vector<std::string>& done) {
  const HookFolder hooks(repo.hooks, repo.top);
  for (const std::string& name : our_hooks()) {
    // Where the pre-commit framework owns the folder (framework_slot).
    if (hooks.is_ours(name, name + ".legacy")) {
      hooks.remove(name + ".legacy");
      done.push_back("Removed the " + name + " hook from " + repo.hooks.string() + " (" + name + ".legacy).");
    }
    if (!hooks.is_ours(name)) continue;
    hooks.remove(name);
    done.push_back("Removed the " + name + " hook from " + repo.hooks.string() + ".");
    if (hooks.exists(chained_name(name))) {
      hooks.rename(chained_name(name), name);
      done.push_back("Put the chained " + name + " hook back in place.");
    }
  }
}

// The filter set at a scope this uninstall did not clear still runs here,
// and puts missing hooks back: that is turned off for this repository,
// before any git command that could start the filter. Returns the scope
// that still sets it.
std::optional<std::string> record_uninstalled(const RepoLayout& repo, std::vector<std::string>& done) {
  const GitCli local(repo.top);
  const auto origin = local.config_origin("filter.jpblob.process");
  if (!origin) return std::nullopt;
  if (ConfigReader::through(local).get_bool(kAutoInstallHook) != false) {
    local.config_set(kAutoInstallHook, "false", ConfigScope::Local);
    done.push_back("Recorded jpblob.autoInstallHook=false in this repository's config, so that no git command puts "
                   "git-jpblob's hooks back here (`git jpblob install` here takes it back).");
  }
  return origin->scope;
}

// Something of install's is in this repository: a hook of ours, a lean tree.
bool set_up_here(const RepoLayout& repo, const std::optional<GitRepo>& git_repo) {
  const HookFolder hooks(repo.hooks, repo.top);
  for (const std::string& name : our_hooks())
    if (hooks.is_ours(name) || hooks.is_ours(name, name + ".legacy")) return true;
  return git_repo && is_lean(*git_repo);
}

}  // namespace

void forget_uninstall_record(const RepoLayout& repo, std::vector<std::string>& done) {
  const GitCli local(repo.top);
  if (ConfigReader::through(local, ConfigScope::Local).get_bool(kAutoInstallHook) != false) return;
  local.config_unset(kAutoInstallHook, ConfigScope::Local);
  local.config_remove_empty_section("jpblob", ConfigScope::Local);
  done.push_back("Removed jpblob.autoInstallHook=false from this repository's config: the filter puts git-jpblob's "
                 "hooks back here again should they go.");
}

std::vector<std::string> uninstall(const fs::path& cwd, const InstallOptions& options) {
  const auto repo = find_repo(cwd);
  if (options.scope == ConfigScope::Local && !repo)
    throw Error("uninstall --local must run inside a git repository");
  std::vector<std::string> done;
  const fs::path config_cwd = repo ? repo->top : cwd;
  bool config_changed = false;
  const GitCli config(config_cwd);
  // By key: either form, the absolute path an earlier install wrote or the
  // name on PATH.
  for (const auto& [key, value] : config_entries())
    if (config.config_unset(key, options.scope)) config_changed = true;
  // Drop the section headers git leaves behind, but only when empty.
  for (const char* section : {"filter.jpblob", "diff.jpblob", "merge.jpblob"})
    config.config_remove_empty_section(section, options.scope);
  if (config_changed) done.push_back("Removed the jpblob filter and diff driver from the " +
                                     config_scope_name(options.scope) + " git config.");
  if (options.scope != ConfigScope::Local)
    if (auto removed = remove_lean_template(config, options.scope)) done.push_back(*removed);
  if (config.config_unset("jpblob.lean", options.scope))
    done.push_back("Removed jpblob.lean from the " + config_scope_name(options.scope) + " git config.");
  if (!repo) return done.empty() ? std::vector<std::string>{"Nothing to change."} : done;

  const auto git_repo = GitRepo::open(repo->top);
  const bool undoing = config_changed || set_up_here(*repo, git_repo);
  std::optional<std::string> still_set;
  if (undoing) still_set = record_uninstalled(*repo, done);
  remove_attribute_lines(*repo, undoing, done);
  remove_hooks(*repo, done);
  if (git_repo && is_lean(*git_repo) && leave_lean(*repo, GitCli(repo->top)))
    done.push_back("This clone checks out its committed blobs again: a plain checkout, as before git-jpblob.");
  if (still_set)
    done.push_back("git-jpblob's filter is still set in your " + *still_set + " config, so git still runs it in this "
                   "repository, but no hook checks its commits for their blobs any more; `git jpblob uninstall --" +
                   *still_set + "` removes the filter.");
  return done.empty() ? std::vector<std::string>{"Nothing to change."} : done;
}

}  // namespace jpblob
