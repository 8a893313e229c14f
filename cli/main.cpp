// git-jpblob: the command table. Each command is a function elsewhere; this
// file parses arguments and maps failures to exit statuses (0 success,
// 1 failure, 2 usage) with one-line messages: "git-jpblob: <what>: <why>".
#include <CLI/CLI.hpp>

#include <csignal>
#include <iostream>

#include "core/error.hpp"
#include "filter/oneshot.hpp"
#include "filter/process.hpp"

namespace {

constexpr const char* kVersion = "0.1.0";

void add_filter_command(CLI::App& app, const char* name, const char* help,
                        jpblob::FilterArgs& args, void (*run)(const jpblob::FilterArgs&)) {
  auto* cmd = app.add_subcommand(name, help);
  cmd->add_option("path", args.path, "the file's path in the repository (git's %f), for messages");
  cmd->add_option("--store", args.store_dir,
                  "a JP storage folder whose blobs/ to use instead of the work tree's .jp/blobs");
  cmd->callback([&args, run] { run(args); });
}

}  // namespace

int main(int argc, char** argv) {
  // A closed pipe must surface as a write error (EPIPE) with a message, not
  // as a silent death.
  std::signal(SIGPIPE, SIG_IGN);

  CLI::App app{"git-jpblob: keeps JP conversations small and shareable in git", "git-jpblob"};
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1);

  jpblob::FilterArgs clean_args, smudge_args;
  add_filter_command(app, "clean", "filter a conversation from the work tree to the repository",
                     clean_args, jpblob::run_clean);
  add_filter_command(app, "smudge", "filter a conversation from the repository to the work tree",
                     smudge_args, jpblob::run_smudge);

  std::optional<std::filesystem::path> process_store;
  auto* process = app.add_subcommand("filter-process", "serve git's long-running filter protocol");
  process->add_option("--store", process_store, "a JP storage folder whose blobs/ to use");
  process->callback([&] { jpblob::run_filter_process(0, 1, process_store); });

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "git-jpblob: " << e.what() << "\n";
    return 2;
  } catch (const jpblob::Error& e) {
    std::cerr << "git-jpblob: " << e.what() << "\n";
    return e.kind() == jpblob::ErrorKind::Usage ? 2 : 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "git-jpblob: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "git-jpblob: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
