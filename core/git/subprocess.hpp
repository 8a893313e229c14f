// Running another program (git) and capturing what it prints.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>
#include <string>
#include <utility>
#include <vector>

namespace jpblob {

struct CommandOutput {
  int status;       // exit status, or 128 + signal
  std::string out;  // standard output
  std::string err;  // standard error
};

// Variables set for one child, on top of this process's environment.
using Environment = std::vector<std::pair<std::string, std::string>>;

// Runs argv[0] (looked up on PATH) in `cwd`, feeding `input` on standard
// input (none when empty), with this process's environment and
// `environment` on top. Throws Error only when the program cannot be
// started.
CommandOutput run_command(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const std::string& input = {}, const Environment& environment = {});

// Standard input made as it is read: each call puts the next piece in
// `chunk` and returns true, or returns false at the end.
using InputChunks = std::function<bool(std::string& chunk)>;

// run_command with standard input from `next_input`, asked for the next
// piece only when the program has taken the last: input of any length in
// bounded memory. When `next_input` throws, the program's input ends there,
// the program is waited for, and the error is thrown on.
CommandOutput run_command(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const InputChunks& next_input, const Environment& environment = {});

// Runs argv[0] (looked up on PATH) in `cwd` with this process's standard
// input (or `input`, when given) and environment, handing everything it
// writes to standard output and standard error, interleaved as written, to
// `on_output` as it comes. Returns the exit status, or 128 + signal. Throws
// Error when the program cannot be started (the message says why: not
// found, not executable).
int stream_command(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                   const std::function<void(std::string_view)>& on_output,
                   const std::optional<std::string>& input = std::nullopt);

// Starts argv[0] (an absolute path) in `cwd` and does not wait for it: a
// session of its own, standard input, output and error on /dev/null, so
// that nothing reading this process's output (git, a hook manager) waits
// for it either. As git's detached `gc --auto` does. Throws Error when it
// cannot be started.
void start_detached(const std::vector<std::string>& argv, const std::filesystem::path& cwd);

// This program's own executable, as the kernel knows it.
std::filesystem::path this_executable();

// Splits a program's output into records ended by `separator` (git's -z
// output uses NUL); a last record without its separator is kept.
std::vector<std::string> split_records(const std::string& out, char separator);

// The first line of a program's output, without its line ending ("\n" or
// "\r\n").
std::string first_line(const std::string& text);

// Splits "a b c" into its space-separated fields (an empty one where two
// spaces meet), as views into `line`.
std::vector<std::string_view> split_fields(std::string_view line);

// The first executable regular file named `name` in the folders of the
// PATH environment variable, as the shell finds a command; nullopt when
// there is none (or PATH is unset).
std::optional<std::filesystem::path> find_on_path(const std::string& name);

// Quotes a word for /bin/sh when it needs quoting; plain words stay as they
// are so git config stays readable.
std::string shell_quote(const std::string& word);

}  // namespace jpblob
