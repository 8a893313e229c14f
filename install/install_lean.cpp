#include "install_lean.hpp"

#include <cstdlib>

#include "core/base/error.hpp"
#include "core/git/config_reader.hpp"
#include "core/git/git_repo.hpp"
#include "core/lean/lean_tree.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {
using Repo = RepoLayout;
// Where install --lean keeps the template init.templateDir names.
fs::path lean_template_dir() {
  const char* data = std::getenv("XDG_DATA_HOME");
  const char* home = std::getenv("HOME");
  if (data && *data) return fs::path(data) / "git-jpblob" / "template";
  if (!home || !*home) throw Error("cannot place the clone template: neither XDG_DATA_HOME nor HOME is set");
  return fs::path(home) / ".local" / "share" / "git-jpblob" / "template";
}

}  // namespace

// Takes our clone template back out of init.templateDir at `scope`, when it
// is ours; another template is left alone. Returns the line to print.
std::optional<std::string> remove_lean_template(const GitCli& git, ConfigScope scope) {
  const fs::path dir = lean_template_dir();
  const auto current = ConfigReader::through(git, scope).get("init.templateDir");
  std::error_code ignored;
  fs::remove_all(dir, ignored);  // ours alone, whether named or written as an example
  if (!current || fs::path(*current) != dir) return std::nullopt;
  git.config_unset("init.templateDir", scope);
  return "New clones check out .jp/blobs again: removed init.templateDir (" + dir.string() + ").";
}

// The lean work tree's part of install (core/lean/lean_tree). Nothing here
// touches a repository install does not run in, unless asked:
// - in a repository (and no explicit --global or --system), --lean and
//   --no-lean are this repository's choice (its jpblob.lean) and convert it
//   either way; with neither, a repository that tracks blobs becomes lean
//   unless it keeps its store by choice (lean_refused);
// - elsewhere, or with an explicit user or system scope, --no-lean sets
//   jpblob.lean=false there (new clones check their store out) and --lean
//   takes that back; a clone becomes lean through the post-checkout hook
//   the filter installs during its checkout, never through a template;
// - --clone-template (opt-in) writes git's template plus a lean sparse
//   checkout and names it in init.templateDir, so that a clone never writes
//   the blob files at all, at the price of every repository git makes
//   being a sparse checkout. Without it, a template of ours that an earlier
//   install named is taken back out.
std::vector<std::string> install_lean(const fs::path& cwd, const std::optional<Repo>& repo,
                                      const InstallOptions& options) {
  std::vector<std::string> done;
  const GitCli git(repo ? repo->top : cwd);
  const bool for_repository = repo && !options.scope_given && options.scope != ConfigScope::Local;
  const bool here = repo && (for_repository || options.scope == ConfigScope::Local);
  if (options.scope != ConfigScope::Local) {
    if (!here && options.lean == false) {
      git.config_set("jpblob.lean", "false", options.scope);
      done.push_back("New clones check out their committed blobs: jpblob.lean is false in your " +
                     config_scope_name(options.scope) + " config (`install --lean` takes it back).");
    } else if (!here && options.lean == true && git.config_unset("jpblob.lean", options.scope)) {
      done.push_back("New clones of repositories that hold conversations are lean again: removed jpblob.lean from "
                     "your " + config_scope_name(options.scope) + " config.");
    }
    const fs::path dir = lean_template_dir();
    const auto current = ConfigReader::through(git, options.scope).get("init.templateDir");
    if (!options.clone_template) {
      if (auto removed = remove_lean_template(git, options.scope)) done.push_back(*removed);
    } else if (ConfigReader::through(git, options.scope).get("jpblob.smudge") == "refs") {
      done.push_back("No clone template: jpblob.smudge is refs, and JP reads the blob files.");
    } else {
      write_lean_template(dir);
      if (current && fs::path(*current) != dir) {
        done.push_back("Left init.templateDir (" + *current + ") alone. To make clones lean from their first "
                       "checkout, add to that template what " + dir.string() + " adds to git's own: its config, "
                       "its info/sparse-checkout and the last two lines of its info/exclude.");
      } else if (!current) {
        git.config_set("init.templateDir", dir.string(), options.scope);
        done.push_back("Every repository git makes from now on is a sparse checkout that leaves .jp/blobs out: "
                       "init.templateDir is " + dir.string() + " (in your " + config_scope_name(options.scope) +
                       " config; `install` without --clone-template takes it out).");
      }
    }
  }
  if (!here) return done;
  const GitCli local(repo->top);
  if (options.lean) local.config_set("jpblob.lean", *options.lean ? "true" : "false", ConfigScope::Local);
  const auto git_repo = GitRepo::open(repo->top);
  const bool lean_now = git_repo && is_lean(*git_repo);
  if (options.lean == false) {
    if (lean_now && leave_lean(*repo, local)) {
      done.push_back("This clone checks out its committed blobs again (jpblob.lean is false in its config).");
    } else {
      done.push_back("This clone checks out its committed blobs (jpblob.lean is false in its config).");
    }
    return done;
  }
  // Unasked, only a repository that holds conversations' blobs.
  if (lean_now || (options.lean != true && !tracks_blobs(local))) return done;
  if (auto why = lean_refused(local)) {
    if (options.lean == true) throw Error(*why);
    return done;
  }
  const Workspace ws = Workspace::open(repo->top, std::nullopt, SharedSettings::Later);
  make_lean(*repo, local, ws.lean_parts());
  done.push_back("This clone keeps its committed blobs in git's objects only now (lean): they left the work tree, "
                 "and status no longer looks at them. `git jpblob install --no-lean` checks them out again.");
  return done;
}

}  // namespace jpblob
