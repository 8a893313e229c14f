// From what the command line gave (cli::Parsed, by the definition's names)
// to the functions that do the work: one runner per command.
#include "cli/runners.hpp"

#include <iostream>

#include "cli/artifact_commands.hpp"
#include "cli/commands.hpp"
#include "cli/diagnostics.hpp"
#include "cli/help_text.hpp"
#include "cli/maintenance_commands.hpp"
#include "cli/quiet.hpp"
#include "cli/suggest.hpp"
#include "core/base/error.hpp"
#include "core/base/trace.hpp"
#include "filter/oneshot.hpp"
#include "filter/process.hpp"
#include "install/hook_guard.hpp"

namespace jpblob {

namespace fs = std::filesystem;
using cli::Parsed;

namespace {

std::optional<fs::path> path_value(const Parsed& p, std::string_view key) {
  if (auto v = p.value(key)) return fs::path(*v);
  return std::nullopt;
}

std::optional<std::uint64_t> number(const Parsed& p, std::string_view key) {
  if (auto v = p.value(key)) return std::stoull(*v);  // the definition's check made it a number
  return std::nullopt;
}

std::string first(const std::vector<std::string>& values) { return values.empty() ? std::string() : values.front(); }

// Everything a maintenance or artifact command may read; a name the
// command does not define reads as not given.
MaintenanceArgs maintenance_args(const Parsed& p) {
  set_quiet(p.flag("quiet"));
  MaintenanceArgs m;
  m.dry_run = p.flag("dry-run");
  m.json = p.flag("json");
  m.history = p.flag("history");
  m.revisions = p.values("revisions");
  m.prune = p.value("prune").value_or("");  // alone, or not given: gc.pruneExpire, as git gc
  if (p.flag("no-prune")) m.prune = "never";
  m.store = path_value(p, "store");
  m.target = first(p.values("conversation"));
  if (m.target.empty()) m.target = first(p.values("url"));
  m.targets = p.values("conversations");
  m.session = path_value(p, "session");
  m.offset = number(p, "offset");
  m.limit = number(p, "limit");
  m.tool = p.value("tool").value_or("");
  m.command = p.values("command");
  for (const std::string& f : p.values("files")) m.files.emplace_back(f);
  for (const std::string& f : p.values("paths")) m.files.emplace_back(f);
  if (auto t = number(p, "threshold")) m.threshold = *t;
  m.expired = p.flag("expired");
  return m;
}

InstallOptions install_options(const Parsed& p) {
  set_quiet(p.flag("quiet"));
  InstallOptions o;
  o.scope = p.flag("local") ? ConfigScope::Local : p.flag("system") ? ConfigScope::System : ConfigScope::Global;
  o.scope_given = p.flag("local") || p.flag("global") || p.flag("system");
  o.program = program_path();
  o.force = p.flag("force");
  if (p.flag("lean")) o.lean = true;
  if (p.flag("no-lean")) o.lean = false;
  o.clone_template = p.flag("clone-template");
  return o;
}

FilterArgs filter_args(const Parsed& p) { return {first(p.values("path")), path_value(p, "store")}; }

// A runner for a command that returns nothing: 0 unless it throws.
template <class Run>
cli::Runner plain(Run run) {
  return [run](const Parsed& p) {
    run(p);
    return 0;
  };
}

cli::Runner maintenance(void (*run)(const MaintenanceArgs&)) {
  return plain([run](const Parsed& p) { run(maintenance_args(p)); });
}

void add_plumbing(std::map<std::string, cli::Runner>& r) {
  r["clean"] = plain([](const Parsed& p) { run_clean(filter_args(p)); });
  r["smudge"] = plain([](const Parsed& p) { run_smudge(filter_args(p)); });
  r["filter-process"] = plain([](const Parsed& p) {
    run_filter_process(0, 1, path_value(p, "store"), [](Filter& filter) {
      const Workspace& ws = filter.workspace();
      // A warning is for the user to act on; that the hooks were installed is
      // not: a clone prints nothing of ours (GIT_TRACE shows it). Where no
      // hook runs git-jpblob's check (install/hook_guard), new content is
      // refused at `git add`, and the warning says why and what to do.
      auto line = ensure_hook(fs::current_path(), ws.repo());
      if (auto why = unchecked_commits(fs::current_path(), ws.repo())) {
        filter.refuse_new_blobs();
        line = "warning: commits here are not checked for their blobs, so `git add` of new content is refused: " + *why;
      } else if (our_hook_in_place(ws.repo())) {
        filter.send_new_blobs_to_git_folder();  // our hook stages them from there
      }
      if (line) {
        if (line->starts_with("warning: ")) std::cerr << "git-jpblob: " + *line + "\n" << std::flush;
        else JPBLOB_TRACE(*line);
      }
    });
  });
  r["pre-commit"] = plain([](const Parsed&) { run_pre_commit(); });
  r["post-checkout"] = plain([](const Parsed&) { run_post_checkout(); });
  r["pre-push"] = plain([](const Parsed& p) { run_pre_push(first(p.values("remote")), first(p.values("url"))); });
  r["pre-receive"] = plain([](const Parsed&) { run_pre_receive(); });
  r["purge-retired"] = plain([](const Parsed& p) { run_purge_retired(first(p.values("git-common-dir"))); });
  r["merge"] = [](const Parsed& p) { return run_merge_driver(p.values("files")); };
  r["textconv"] = plain([](const Parsed& p) { run_textconv(first(p.values("file"))); });
}

}  // namespace

std::map<std::string, cli::Runner> command_runners(const std::string& version) {
  std::map<std::string, cli::Runner> r;
  r["install"] = plain([](const Parsed& p) { run_install(install_options(p)); });
  r["uninstall"] = plain([](const Parsed& p) { run_uninstall(install_options(p)); });
  r["export"] = plain([](const Parsed& p) {
    set_quiet(p.flag("quiet"));
    run_export(p.flag("dry-run"));
  });
  r["gc"] = maintenance(run_gc_command);
  r["verify"] = maintenance(run_verify_command);
  r["files"] = maintenance(run_files_command);
  r["purge-list"] = maintenance(run_purge_list_command);
  r["print"] = maintenance(run_print_command);
  r["cat"] = maintenance(run_cat_command);
  r["store"] = maintenance(run_store_command);
  r["run"] = [](const Parsed& p) { return run_run_command(maintenance_args(p)); };
  r["artifacts gc"] = maintenance(run_artifacts_gc_command);
  r["artifacts stats"] = maintenance(run_artifacts_stats_command);
  r["migrate"] = maintenance(run_migrate_command);
  r["checkout"] = maintenance(run_checkout_command);
  r["repair"] = maintenance(run_repair_command);
  r["stats"] = maintenance(run_stats_command);
  r["version"] = plain([version](const Parsed&) { std::cout << version_text(version); });
  r["env"] = plain([version](const Parsed& p) { run_env_command(version, p.flag("json")); });
  r["ls-files"] = plain([](const Parsed& p) {
    const std::string commit = first(p.values("commit"));
    run_ls_files_command(commit.empty() ? std::nullopt : std::optional<std::string>(commit), p.flag("json"));
  });
  r["status"] = plain([](const Parsed& p) { run_status_command(p.flag("json")); });
  r["help"] = [](const Parsed& p) { return run_help(first(p.values("command")), p.flag("all")); };
  add_plumbing(r);
  return r;
}

int run_help(const std::string& topic, bool all) {
  const cli::Definition& def = cli::definition();
  if (topic.empty()) {
    std::cout << cli::command_list(def, all);
    return 0;
  }
  if (const cli::CommandDef* c = def.command(topic)) return cli::show_manual(*c);
  std::cerr << unknown_command_text(topic);
  return 1;
}

std::string unknown_command_text(const std::string& typed) {
  const cli::Definition& def = cli::definition();
  auto lfs = def.lfs_names.find(typed);
  if (lfs != def.lfs_names.end())
    return "git-jpblob: '" + typed + "' is git-lfs's name; git-jpblob's is 'git jpblob " + lfs->second + "' (" +
           def.command(lfs->second)->summary + ")\n";
  return unknown_command_message(typed, similar_commands(typed, def.names()));
}

}  // namespace jpblob
