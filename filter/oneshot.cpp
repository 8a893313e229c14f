#include "oneshot.hpp"

#include <unistd.h>

#include <iostream>

#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/transform.hpp"
#include "core/workspace.hpp"

namespace jpblob {

namespace {

std::string read_stdin() { return read_all(STDIN_FILENO, "standard input"); }

void write_stdout(std::string_view data) { write_all(STDOUT_FILENO, data, "standard output"); }

void warn(const TransformReport& report) {
  if (report.warning) std::cerr << "git-jpblob: warning: " << *report.warning << '\n';
}

std::string display_path(const FilterArgs& args) {
  return args.path.empty() ? std::string("<stdin>") : args.path;
}

}  // namespace

void run_clean(const FilterArgs& args) {
  const Workspace ws = Workspace::open(std::filesystem::current_path(), args.store_dir);
  const std::string input = read_stdin();
  CleanOptions options;
  options.min_size = ws.settings().min_size;
  options.path = display_path(args);
  warn(clean(input, ws.store(), options, write_stdout));
}

void run_smudge(const FilterArgs& args) {
  const Workspace ws = Workspace::open(std::filesystem::current_path(), args.store_dir);
  const std::string input = read_stdin();
  if (ws.settings().smudge_refs_only) {
    write_stdout(input);
    return;
  }
  SmudgeOptions options;
  options.path = display_path(args);
  warn(smudge(input, ws.blobs(), options, write_stdout));
}

}  // namespace jpblob
