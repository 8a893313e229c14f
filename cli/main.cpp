// git-jpblob: the command table. Each command is a function elsewhere; this
// file parses arguments and maps failures to exit statuses (0 success,
// 1 failure, 2 usage) with one-line messages: "git-jpblob: <what>: <why>".
// git's conventions apply: `--help` shows the manual page, a mistyped
// command names the one meant (exit 1), and a closed pipe on standard
// output ends a command quietly, except the filters, for which it means
// git died.
#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>

#include "cli/artifact_commands.hpp"
#include "cli/closed_pipe.hpp"
#include "cli/commands.hpp"
#include "cli/diagnostics.hpp"
#include "cli/manual.hpp"
#include "cli/suggest.hpp"
#include "cli/maintenance_commands.hpp"
#include "core/base/error.hpp"
#include "filter/oneshot.hpp"
#include "filter/process.hpp"

namespace {

constexpr const char* kVersion = "0.1.0";

// What the command line sets, for every command: CLI11 writes the options
// here while it parses, and the command's callback reads them.
struct Args {
  jpblob::FilterArgs filter;
  std::optional<std::filesystem::path> store;  // filter-process --store
  jpblob::InstallOptions install;
  bool local = false, global = false, system = false;
  bool lean = false, no_lean = false;  // install --lean, --no-lean
  std::filesystem::path file;  // textconv
  std::vector<std::string> checkout_args;  // post-checkout: <previous> <new> <branch?>
  std::string push_remote, push_url;  // pre-push
  std::string purge_dir;  // purge-retired
  jpblob::MaintenanceArgs m;
  std::vector<std::string> merge_args;
  bool env_json = false, ls_json = false, status_json = false;
  std::optional<std::string> ls_commit;
  std::string help_topic;
  int run_status = 0;  // the status of a command that sets its own: run, merge, help
};

// When a closed pipe on standard output ends a command quietly: every
// command but the filters, for which it means git died.
struct ClosedPipe {
  bool quiet = false;
  bool reader_gone() const { return quiet && jpblob::reader_gone(STDOUT_FILENO); }
  // An error that is a write failing with EPIPE (errno_error's "…: Broken
  // pipe"), not one that merely happened while the reader was gone.
  bool killed(const std::exception& e) const {
    return std::string_view(e.what()).ends_with(std::strerror(EPIPE)) && reader_gone();
  }
};

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  return names;
}

// What `git jpblob` alone and `git jpblob help` print: every command with
// its one-line description, as `git lfs` does.
std::string command_list(const CLI::App& app) {
  std::size_t width = 0;
  for (const CLI::App* sub : app.get_subcommands({})) width = std::max(width, sub->get_name().size());
  std::string out = "usage: git jpblob <command> [<args>]\n\nThe commands:\n";
  for (const CLI::App* sub : app.get_subcommands({}))
    out += "  " + sub->get_name() + std::string(width + 2 - sub->get_name().size(), ' ') + sub->get_description() + "\n";
  return out + "\n`git jpblob help <command>` shows one command's options; `git jpblob --help` the manual page.\n";
}

void add_filter_command(CLI::App& app, const char* name, const char* help, Args& args,
                        void (*run)(const jpblob::FilterArgs&)) {
  auto* cmd = app.add_subcommand(name, help);
  cmd->add_option("path", args.filter.path, "the file's path in the repository (git's %f), for messages");
  cmd->add_option("--store", args.filter.store_dir,
                  "a JP storage folder whose blobs/ to use instead of the work tree's .jp/blobs");
  cmd->callback([&args, run] { run(args.filter); });
}

void add_install_command(CLI::App& app, const char* name, const char* help, Args& args,
                         void (*run)(const jpblob::InstallOptions&)) {
  auto* cmd = app.add_subcommand(name, help);
  auto* local = cmd->add_flag("--local", args.local, "this repository's config");
  auto* global = cmd->add_flag("--global", args.global, "your user config (the default)");
  auto* system = cmd->add_flag("--system", args.system, "the system config");
  local->excludes(global)->excludes(system);
  global->excludes(system);
  if (std::string(name) == "install") {
    cmd->add_flag("--force", args.install.force,
                  "keep a pre-commit hook git-jpblob did not write and chain it");
    cmd->add_flag("--lean", args.lean,
                  "this clone keeps committed blobs in git's objects only (the default for clones that hold "
                  "conversations); outside a clone, or with --global/--system, takes back --no-lean there");
    cmd->add_flag("--no-lean", args.no_lean,
                  "this clone checks its committed blobs out; outside a clone, or with --global/--system, "
                  "new clones do")
        ->excludes("--lean");
    cmd->add_flag("--clone-template", args.install.clone_template,
                  "opt-in: init.templateDir names a template that makes every clone and `git init` a sparse "
                  "checkout leaving .jp/blobs out, so clones never write the blob files (every repository git "
                  "makes then says it is a sparse checkout)");
  }
  cmd->callback([&args, run] {
    args.install.scope = args.local    ? jpblob::ConfigScope::Local
                         : args.system ? jpblob::ConfigScope::System
                                       : jpblob::ConfigScope::Global;
    args.install.scope_given = args.local || args.global || args.system;
    args.install.program = jpblob::program_path();
    if (args.lean) args.install.lean = true;
    if (args.no_lean) args.install.lean = false;
    run(args.install);
  });
}

void add_setup_commands(CLI::App& app, Args& args) {
  add_install_command(app, "install", "set up the filter, .gitattributes and the pre-commit hook",
                      args, jpblob::run_install);
  add_install_command(app, "uninstall", "remove exactly what install added", args,
                      jpblob::run_uninstall);
}

// What git runs through the config install writes: the one-shot filters
// and the long-running one.
void add_filter_commands(CLI::App& app, Args& args) {
  add_filter_command(app, "clean", "filter a conversation from the work tree to the repository",
                     args, jpblob::run_clean);
  add_filter_command(app, "smudge", "filter a conversation from the repository to the work tree",
                     args, jpblob::run_smudge);
  auto* process = app.add_subcommand("filter-process", "serve git's long-running filter protocol");
  process->add_option("--store", args.store, "a JP storage folder whose blobs/ to use");
  process->callback([&args] {
    jpblob::run_filter_process(0, 1, args.store, [](const jpblob::Workspace& ws) {
      if (auto line = jpblob::ensure_hook(std::filesystem::current_path(), ws.repo()))
        std::cerr << "git-jpblob: " << *line << std::endl;
    });
  });
}

// What git's hooks run, and what the pre-commit hook starts.
void add_hook_commands(CLI::App& app, Args& args) {
  app.add_subcommand("pre-commit", "the pre-commit hook: stage and verify referenced blobs")
      ->callback([] { jpblob::run_pre_commit(); });
  app.add_subcommand("post-checkout", "the post-checkout hook: a new clone of conversations becomes lean")
      ->add_option("args", args.checkout_args, "what git passes: the previous HEAD, the new one, 1 for a branch checkout")
      ->expected(0, 3);
  app.get_subcommand("post-checkout")->callback([&args] {
    jpblob::run_post_checkout(args.checkout_args.empty() ? std::string() : args.checkout_args[0]);
  });
  auto* pre_push = app.add_subcommand("pre-push", "the pre-push hook: refuse commits lacking a blob or holding a corrupt one");
  pre_push->add_option("remote", args.push_remote, "the remote's name (or URL); the pre-commit framework's when absent");
  pre_push->add_option("url", args.push_url, "the remote's URL");
  pre_push->callback([&args] { jpblob::run_pre_push(args.push_remote, args.push_url); });
  app.add_subcommand("pre-receive", "the server's pre-receive hook: refuse pushed commits lacking a blob or holding a corrupt one")
      ->callback([] { jpblob::run_pre_receive(); });
  app.add_subcommand("purge-retired", "delete the kept copies a commit set aside (what the pre-commit hook starts)")
      ->add_option("git-common-dir", args.purge_dir, "the repository's common git folder")
      ->required();
  app.get_subcommand("purge-retired")->callback([&args] { jpblob::run_purge_retired(args.purge_dir); });
}

// A command that runs `run` with the maintenance arguments.
CLI::App* add_maintenance_command(CLI::App& app, jpblob::MaintenanceArgs& m, const char* name, const char* help,
                                  void (*run)(const jpblob::MaintenanceArgs&)) {
  auto* cmd = app.add_subcommand(name, help);
  cmd->callback([&m, run] { run(m); });
  return cmd;
}

// gc and verify, over the store.
void add_store_check_commands(CLI::App& app, jpblob::MaintenanceArgs& m) {
  auto* gc = add_maintenance_command(app, m, "gc", "delete blobs nothing references", jpblob::run_gc_command);
  gc->add_flag("--dry-run", m.dry_run, "say what would be deleted");
  gc->add_option("--prune", m.prune,
                 "keep unreferenced blobs younger than this date (default gc.pruneExpire, 2.weeks.ago; now; never)");
  gc->add_option("--store", m.store, "a JP storage folder instead of the work tree's .jp");
  gc->add_flag("--json", m.json, "machine output");
  auto* verify =
      add_maintenance_command(app, m, "verify", "check every blob and every reference", jpblob::run_verify_command);
  verify->add_flag("--history", m.history, "also check every commit reachable from any ref");
  verify->add_option("revisions", m.revisions, "with --history, only the commits these name (<before>..<after>)");
  verify->add_option("--store", m.store, "a JP storage folder instead of the work tree's .jp");
  verify->add_flag("--json", m.json, "machine output");
}

// files, print, cat and store: conversations and blobs read, or blobs put.
void add_reading_commands(CLI::App& app, jpblob::MaintenanceArgs& m) {
  add_maintenance_command(app, m, "files", "list a conversation's files and referenced blobs", jpblob::run_files_command)
      ->add_option("conversation", m.target, "folder, events.json, id or jp-c<id>")->required();
  auto* purge_list = add_maintenance_command(app, m, "purge-list",
                                             "list what git filter-repo must drop to purge a conversation from history",
                                             jpblob::run_purge_list_command);
  purge_list->add_option("conversations", m.targets, "folder, events.json, id or jp-c<id>, or a session's .jsonl")
      ->required();
  purge_list->add_flag("--json", m.json, "machine output");
  add_maintenance_command(app, m, "print", "print a conversation with every reference resolved",
                          jpblob::run_print_command)
      ->add_option("conversation", m.target, "folder, events.json, id or jp-c<id>")->required();
  auto* cat = add_maintenance_command(app, m, "cat", "write what an internal URL or a blob name resolves to",
                                      jpblob::run_cat_command);
  cat->add_option("url", m.target,
                  "artifact://<n>, agent://<id>[/path|?q=query], blob:sha256:<hex>, a digest, or a unique prefix of 8+")
      ->required();
  cat->add_option("--session", m.session, "the session .jsonl whose artifacts artifact:// and agent:// read");
  cat->add_option("--offset", m.offset, "first line to show, from 1");
  cat->add_option("--limit", m.limit, "most lines to show");
  auto* store_cmd = add_maintenance_command(app, m, "store", "put files' bytes in the blob store and print their blob: URLs",
                                            jpblob::run_store_command);
  store_cmd->add_option("files", m.files, "files whose content to store")->required()->check(CLI::ExistingFile);
  store_cmd->add_option("--store", m.store, "a JP storage folder instead of the work tree's .jp");
  store_cmd->add_flag("--json", m.json, "machine output");
}

// run, and artifacts with its gc and stats: session artifacts.
void add_artifact_commands(CLI::App& app, Args& args) {
  jpblob::MaintenanceArgs& m = args.m;
  auto* run = app.add_subcommand("run", "run a command, keeping its whole output as a session artifact when long");
  run->add_option("--session", m.session, "the session .jsonl whose artifacts folder to use")->required();
  run->add_option("--tool", m.tool, "the tool name in the artifact's file name")->required();
  run->add_option("--threshold", m.threshold,
                  "bytes of output kept on screen before the whole goes to an artifact (default 51200; the "
                  "ArtifactStore seed's 12000 characters: --threshold 12000)")
      ->check(CLI::PositiveNumber);
  run->add_flag("--json", m.json,
                "print only the reference as JSON (artifact_reference, summary, hint, size_bytes; output when "
                "nothing was saved)");
  run->add_option("command", m.command, "the command and its arguments, after --")->required()->expected(-1);
  run->callback([&args] { args.run_status = jpblob::run_run_command(args.m); });
  auto* artifacts = app.add_subcommand("artifacts", "expire, remove and count session artifacts (gc, stats)");
  artifacts->require_subcommand(0, 1);
  // Alone, it lists its subcommands, as `git jpblob` alone lists the commands.
  artifacts->callback([artifacts] {
    if (artifacts->get_subcommands().empty()) std::cout << artifacts->help("git jpblob");
  });
  auto* artifacts_gc = artifacts->add_subcommand(
      "gc", "remove artifacts older than jpblob.artifactTtl and orphaned folders, or one session's artifacts");
  artifacts_gc->add_option("--session", m.session, "remove this session's artifacts and index (with --expired: only "
                                                    "its expired ones)");
  artifacts_gc->add_flag("--expired", m.expired,
                         "remove artifacts past jpblob.artifactTtl in every folder under .jp/sessions (the default "
                         "without --session)");
  artifacts_gc->add_flag("--dry-run", m.dry_run, "say what would be removed");
  artifacts_gc->add_flag("--json", m.json, "machine output");
  artifacts_gc->callback([&m] { jpblob::run_artifacts_gc_command(m); });
  auto* artifacts_stats = artifacts->add_subcommand("stats", "count artifacts and their bytes, per tool");
  artifacts_stats->add_option("--session", m.session, "only this session's artifacts (default: all under .jp/sessions)");
  artifacts_stats->add_flag("--json", m.json, "machine output");
  artifacts_stats->callback([&m] { jpblob::run_artifacts_stats_command(m); });
}

// migrate, checkout and repair, which rewrite documents or blobs, and stats.
void add_rewriting_commands(CLI::App& app, jpblob::MaintenanceArgs& m) {
  auto* migrate = add_maintenance_command(app, m, "migrate", "rewrite every conversation to its cleaned form",
                                          jpblob::run_migrate_command);
  migrate->add_flag("--dry-run", m.dry_run, "say what would be rewritten");
  migrate->add_flag("--json", m.json, "machine output");
  auto* checkout = add_maintenance_command(app, m, "checkout",
                                           "put JP's own form back in the work tree from the reference form",
                                           jpblob::run_checkout_command);
  checkout->add_option("paths", m.files, "documents or folders (default: all)");
  checkout->add_flag("--dry-run", m.dry_run, "say what would be restored");
  checkout->add_flag("--json", m.json, "machine output");
  add_maintenance_command(app, m, "repair", "write corrupt or missing blobs again from any good copy",
                          jpblob::run_repair_command)
      ->add_flag("--json", m.json, "machine output");
  auto* stats = add_maintenance_command(app, m, "stats", "conversations, blobs and savings", jpblob::run_stats_command);
  stats->add_flag("--json", m.json, "machine output");
  stats->add_option("--store", m.store, "a JP storage folder instead of the work tree's .jp");
}

void add_merge_command(CLI::App& app, Args& args) {
  auto* merge = app.add_subcommand("merge", "the merge driver git runs: merge.jpblob.driver (%O %A %B %L %P)");
  merge->add_option("files", args.merge_args, "base, ours (written with the result), theirs, marker size, path")
      ->required()
      ->expected(5);
  merge->callback([&args] { args.run_status = jpblob::run_merge_driver(args.merge_args); });
}

// version, env, ls-files and status: how git-jpblob is set up and what it holds (cli/diagnostics).
void add_diagnostic_commands(CLI::App& app, Args& args) {
  app.add_subcommand("version", "print git-jpblob's version, git's and libgit2's")->callback([] {
    std::cout << jpblob::version_text(kVersion);
  });
  app.add_subcommand("env", "print how git-jpblob is set up here, one key=value a line")
      ->callback([&args] { jpblob::run_env_command(kVersion, args.env_json); })
      ->add_flag("--json", args.env_json, "machine output");
  auto* ls_files = app.add_subcommand("ls-files", "list each conversation in the index (or a commit) and its blobs");
  ls_files->add_option("commit", args.ls_commit, "a commit to list instead of the index");
  ls_files->add_flag("--json", args.ls_json, "machine output");
  ls_files->callback([&args] { jpblob::run_ls_files_command(args.ls_commit, args.ls_json); });
  app.add_subcommand("status", "which conversations have every blob committed, staged, not staged yet, or missing")
      ->callback([&args] { jpblob::run_status_command(args.status_json); })
      ->add_flag("--json", args.status_json, "machine output");
}

void add_help_command(CLI::App& app, Args& args) {
  auto* help = app.add_subcommand("help", "print the commands, or one command's options");
  help->add_option("command", args.help_topic, "the command");
  help->callback([&app, &args] {
    const std::string& topic = args.help_topic;
    if (topic.empty()) {
      std::cout << command_list(app);
      return;
    }
    for (const CLI::App* sub : app.get_subcommands({}))
      if (sub->get_name() == topic) {
        std::cout << sub->help("git jpblob");
        return;
      }
    std::cerr << jpblob::unknown_command_message(topic, jpblob::similar_commands(topic, command_names(app)));
    args.run_status = 1;
  });
}

void add_textconv_command(CLI::App& app, Args& args) {
  auto* textconv = app.add_subcommand("textconv", "show a conversation or blob file as text (git diff)");
  textconv->add_option("file", args.file, "the file git hands over")->required();
  textconv->callback([&args] { jpblob::run_textconv(args.file); });
}

// The command table, in the order `git jpblob help` lists it. Every
// command writes its options into `args`, which must outlive the parse.
void add_commands(CLI::App& app, Args& args) {
  app.set_version_flag("--version", [] {
    std::string text = jpblob::version_text(kVersion);
    text.pop_back();  // CLI11 ends the line
    return text;
  });
  app.require_subcommand(1);
  add_setup_commands(app, args);
  add_filter_commands(app, args);
  add_hook_commands(app, args);
  add_store_check_commands(app, args.m);
  add_reading_commands(app, args.m);
  add_artifact_commands(app, args);
  add_rewriting_commands(app, args.m);
  add_merge_command(app, args);
  add_diagnostic_commands(app, args);
  add_help_command(app, args);
  add_textconv_command(app, args);
  for (CLI::App* sub : app.get_subcommands({})) sub->footer(jpblob::command_example(sub->get_name()));
}

// Runs the command the arguments name and returns the exit status: the
// one place where failures become statuses, each with one line on stderr
// (0 success, 1 failure, 2 usage), or a quiet death when the reader of
// standard output is gone (cli/closed_pipe.hpp).
int run_command(CLI::App& app, const Args& args, int argc, char** argv, const ClosedPipe& pipe) {
  // Every handler first stops std::cout throwing: std::cerr flushes it
  // (they are tied), and a throw inside a handler would abort.
  auto cout_quiet = [] { std::cout.exceptions(std::ios::goodbit); };
  try {
    app.parse(argc, argv);
    std::cout.flush();
  } catch (const CLI::ParseError& e) {
    cout_quiet();
    if (e.get_exit_code() == 0) {
      const int status = app.exit(e);  // --help or --version, on std::cout
      if (!std::cout.flush() && pipe.reader_gone()) jpblob::die_of_closed_pipe();
      return status;
    }
    std::cerr << "git-jpblob: " << e.what() << "\n";
    return 2;
  } catch (const jpblob::Error& e) {
    cout_quiet();
    if (pipe.killed(e)) jpblob::die_of_closed_pipe();
    std::cerr << "git-jpblob: " << e.what() << "\n";
    return e.kind() == jpblob::ErrorKind::Usage ? 2 : 1;
  } catch (const std::ios_base::failure&) {
    const int err = errno;  // why std::cout failed (see exceptions() in main)
    cout_quiet();
    if (pipe.reader_gone()) jpblob::die_of_closed_pipe();
    std::cerr << "git-jpblob: cannot write standard output: " << std::strerror(err) << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    cout_quiet();
    // The command that ran, and what bounds memory: a process limit
    // (ulimit -v, a container's) or a blob larger than memory allows.
    std::string command = "git-jpblob";
    for (const CLI::App* sub : app.get_subcommands()) command += " " + sub->get_name();
    std::cerr << "git-jpblob: out of memory in `" << command
              << "`; every file it writes is published whole or not at all. Check `ulimit -v` and the memory this machine has, "
                 "or lower jpblob.maxBlobSize to refuse blobs this large\n";
    return 1;
  } catch (const std::exception& e) {
    cout_quiet();
    // std::cout's failure, when the library's type is not the one caught above.
    if (pipe.reader_gone() && (std::cout.bad() || pipe.killed(e))) jpblob::die_of_closed_pipe();
    std::cerr << "git-jpblob: " << e.what() << "\n";
    return 1;
  }
  return args.run_status;
}

}  // namespace

int main(int argc, char** argv) {
  // A closed pipe must surface as a write error (EPIPE), not as a death by
  // signal: the filters report it, and the other commands then end quietly
  // (cli/closed_pipe.hpp) once the pipe is known to be the cause.
  std::signal(SIGPIPE, SIG_IGN);
  const std::string first = argc > 1 ? argv[1] : "";
  const ClosedPipe pipe{first != "clean" && first != "smudge" && first != "filter-process"};
  // Output that fails throws, so that a command stops at its first write to
  // a closed pipe, as git does, rather than running on to no reader.
  if (pipe.quiet) std::cout.exceptions(std::ios::badbit);
  // Off again once main returns: the flush at exit must not throw.
  struct CoutExceptionsOff {
    ~CoutExceptionsOff() { std::cout.exceptions(std::ios::goodbit); }
  } cout_exceptions_off;
  if (first == "--help") jpblob::exec_manual_page();  // returns when there is no page

  CLI::App app{"git-jpblob: keeps JP conversations small and shareable in git", "git-jpblob"};
  Args args;
  add_commands(app, args);

  if (argc == 1) {
    std::cout.exceptions(std::ios::goodbit);
    std::cout << command_list(app);
    return 0;
  }
  if (!first.empty() && first[0] != '-') {
    const std::vector<std::string> names = command_names(app);
    if (std::find(names.begin(), names.end(), first) == names.end()) {
      std::cerr << jpblob::unknown_command_message(first, jpblob::similar_commands(first, names));
      return 1;  // git's status for an unknown command
    }
  }
  return run_command(app, args, argc, argv, pipe);
}
