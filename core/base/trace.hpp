// GIT_TRACE, as git reads it (git's trace.c): what git-jpblob runs and
// decides, for a bug report. `GIT_TRACE=1 git commit …` shows git's own
// lines and ours among them; a report asks for that beside `git jpblob env`,
// as git-lfs asks for `git lfs env` and GIT_TRACE=1.
//
// The value, read once a process (git's rules): unset, empty, "0" or
// "false" (any case): off. "1" or "true": standard error. One digit 2 to 9:
// that open descriptor. An absolute path: appended to that file (created
// when missing; a file that cannot be opened is a warning and no trace).
// Anything else (a relative path, "10") is a warning and no trace.
// GIT_TRACE_BARE set the same way leaves each line's time and place out.
//
// A line is git's: the local time to the microsecond and the source file
// and line padded to column 40 (at least one space, where git would join a
// long name to the message), then "trace: git-jpblob: " and the message:
//   12:04:31.906117 gc.cpp:154              trace: git-jpblob: gc: …
// Each line is one write(2), so lines of git, of the filters and hooks it
// runs, and of threads never cut into each other (a file is opened
// O_APPEND: each write lands whole at its end). A failed write is one
// warning, and the process traces no more (git's rule).
//
// What is traced: the command (`built-in: git-jpblob gc --dry-run`, at the
// start of main), every program started (`run_command: cd <dir>; <argv>`,
// core/git/subprocess), and the decisions a report needs: the filter's
// clean and smudge of a file, the pre-commit hook's per document and its
// verdict, a work tree becoming lean, gc's counts of what it keeps and
// deletes and why, and the pre-push and pre-receive verdicts.
#pragma once

#include <ctime>
#include <string>
#include <string_view>
#include <vector>

namespace jpblob {

// Where a GIT_TRACE value sends trace lines.
struct TraceTarget {
  enum class Kind {
    Off,         // no tracing
    Descriptor,  // an open descriptor: `fd` (2 for "1" and "true")
    File,        // appended to the file `path` (absolute)
    Unknown,     // not a value git knows: a warning, and no tracing
  };
  Kind kind = Kind::Off;
  int fd = 0;
  std::string path;
};

// GIT_TRACE's value (null when unset) read by git's rules (above). Pure:
// opens nothing.
TraceTarget parse_trace_value(const char* value);

// True when this process traces. GIT_TRACE is read, and its file opened,
// at the first call (a warning on standard error then, once, for a value
// git does not know or a file that cannot be opened). Thread-safe and cheap
// after the first call: JPBLOB_TRACE asks it before building a message.
bool trace_enabled() noexcept;

// Writes one trace line for `message` (a line of its own: no newline
// inside) from `file`:`line` where GIT_TRACE says, with one write(2). Does
// nothing when tracing is off. Never throws.
void trace_write(std::string_view file, int line, std::string_view message) noexcept;

// The line trace_write writes at `now` (local time), newline included;
// `bare`: the message alone after "trace: git-jpblob: " (GIT_TRACE_BARE).
std::string format_trace_line(const std::timespec& now, std::string_view file, int line, std::string_view message,
                              bool bare);

// Each word after a space, single-quoted for the shell only where it holds
// more than letters, digits and +,-./:=@_^ (an empty one is ''), as git's
// trace shows a command line (quote.c, sq_quote_argv_pretty).
std::string quote_argv_pretty(const std::vector<std::string>& argv);

// The last component of a source path (__FILE__ is the absolute one in this
// build): what a trace line names.
constexpr std::string_view trace_basename(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace jpblob

// Traces the message (a std::string or string_view expression), which is
// not even built when tracing is off.
#define JPBLOB_TRACE(...)                                                                        \
  do {                                                                                           \
    if (::jpblob::trace_enabled())                                                               \
      ::jpblob::trace_write(::jpblob::trace_basename(__FILE__), __LINE__, std::string_view(__VA_ARGS__)); \
  } while (false)
