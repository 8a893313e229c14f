// git-jpblob's entry point: the command line comes from its one definition
// (cli/commands.json, cli/definition.hpp), each command's runner from
// cli/runners. This file maps failures to git's exit statuses, each with
// one line on stderr, "git-jpblob: <what>: <why>":
//   0 success, 1 a problem found (or a refusal, or an unknown command),
//   128 fatal (git's die()), 129 usage (and -h, as git's parse-options).
// A closed pipe on standard output ends a command quietly, except the
// filters, for which it means git died.
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <iostream>

#include "cli/closed_pipe.hpp"
#include "cli/command_line.hpp"
#include "cli/diagnostics.hpp"
#include "cli/help_text.hpp"
#include "cli/manual.hpp"
#include "cli/runners.hpp"
#include "core/base/error.hpp"
#include "core/base/trace.hpp"

namespace {

constexpr const char* kVersion = JPBLOB_VERSION;  // project(VERSION) in CMakeLists.txt, the one place it is set
constexpr int kFatal = 128;

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

int status_of(jpblob::ErrorKind kind) {
  switch (kind) {
    case jpblob::ErrorKind::Problem: return 1;
    case jpblob::ErrorKind::Usage: return jpblob::cli::kUsageStatus;
    case jpblob::ErrorKind::Failure: break;
  }
  return kFatal;
}

// Runs the command argv names and returns the exit status: the one place
// where failures become statuses, or a quiet death when the reader of
// standard output is gone (cli/closed_pipe.hpp).
int run_command(int argc, char** argv, const ClosedPipe& pipe) {
  // Every handler first stops std::cout throwing: std::cerr flushes it
  // (they are tied), and a throw inside a handler would abort.
  auto cout_quiet = [] { std::cout.exceptions(std::ios::goodbit); };
  std::string command = argv[1];
  try {
    jpblob::cli::CommandLine line(jpblob::cli::definition(), jpblob::command_runners(kVersion));
    const jpblob::cli::Outcome outcome = line.run(argc, argv);
    command = outcome.command;
    std::cout.flush();
    return outcome.status;
  } catch (const jpblob::Error& e) {
    cout_quiet();
    if (pipe.killed(e)) jpblob::die_of_closed_pipe();
    std::cerr << "git-jpblob: " << e.what() << "\n";
    return status_of(e.kind());
  } catch (const std::ios_base::failure&) {
    const int err = errno;  // why std::cout failed (see exceptions() in main)
    cout_quiet();
    if (pipe.reader_gone()) jpblob::die_of_closed_pipe();
    std::cerr << "git-jpblob: cannot write standard output: " << std::strerror(err) << "\n";
    return kFatal;
  } catch (const std::bad_alloc&) {
    cout_quiet();
    // The command that ran, and what bounds memory: a process limit
    // (ulimit -v, a container's) or a blob larger than memory allows.
    std::cerr << "git-jpblob: out of memory in `git-jpblob " << command
              << "`; every file it writes is published whole or not at all. Check `ulimit -v` and the memory this machine has, "
                 "or lower jpblob.maxBlobSize to refuse blobs this large\n";
    return kFatal;
  } catch (const std::exception& e) {
    cout_quiet();
    // std::cout's failure, when the library's type is not the one caught above.
    if (pipe.reader_gone() && (std::cout.bad() || pipe.killed(e))) jpblob::die_of_closed_pipe();
    std::cerr << "git-jpblob: " << e.what() << "\n";
    return kFatal;
  }
}

// What git-jpblob does with no command: the list, --version, --help (the
// overview manual page), --list-cmds (bash completion), or a usage error.
int run_without_command(const std::string& first) {
  const jpblob::cli::Definition& def = jpblob::cli::definition();
  if (first.empty()) {
    std::cout << jpblob::cli::command_list(def, false);
    return 0;
  }
  if (first == "--version" || first == "-v") {
    std::cout << jpblob::version_text(kVersion);
    return 0;
  }
  if (first == "--help") {
    jpblob::exec_manual_page("git-jpblob");  // returns when there is no page
    std::cout << jpblob::cli::command_list(def, true);
    return 0;
  }
  if (first == "--list-cmds") {  // the commands a user types, for bash completion
    for (const auto& c : def.commands)
      if (c.group != jpblob::cli::Group::Plumbing) std::cout << c.name << "\n";
    return 0;
  }
  if (first == "-h") {
    std::cout << jpblob::cli::command_list(def, false);
    return jpblob::cli::kUsageStatus;
  }
  std::cerr << "git-jpblob: unknown option '" << first << "'\n\n" << jpblob::cli::command_list(def, false);
  return jpblob::cli::kUsageStatus;
}

}  // namespace

int main(int argc, char** argv) {
  JPBLOB_TRACE("built-in: git-jpblob" + jpblob::quote_argv_pretty({argv + 1, argv + argc}));
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

  try {
    if (first.empty() || first[0] == '-') {
      std::cout.exceptions(std::ios::goodbit);
      return run_without_command(first);
    }
    if (!jpblob::cli::definition().command(first)) {
      std::cerr << jpblob::unknown_command_text(first);
      return 1;  // git's status for an unknown command
    }
  } catch (const std::exception& e) {
    std::cerr << "git-jpblob: " << e.what() << "\n";
    return kFatal;
  }
  return run_command(argc, argv, pipe);
}
