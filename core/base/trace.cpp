#include "core/base/trace.hpp"

#include <fcntl.h>
#include <strings.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace jpblob {

namespace {

constexpr std::string_view kPrefix = "trace: git-jpblob: ";
// git aligns its messages at column 40 ("catches most file names in git").
constexpr std::size_t kMessageColumn = 40;

// One write for the whole warning, as for a trace line: a filter's warning
// must not cut into git's own output.
void warn(const std::string& text) {
  const std::string line = "git-jpblob: warning: " + text + "\n";
  [[maybe_unused]] const ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
}

struct TraceState {
  // The descriptor lines go to; 0 once tracing is off (never on, or a
  // write failed). Atomic: a failed write turns it off under other threads.
  std::atomic<int> fd{0};
  bool bare = false;

  TraceState() {
    const TraceTarget target = parse_trace_value(std::getenv("GIT_TRACE"));
    switch (target.kind) {
      case TraceTarget::Kind::Off:
        return;
      case TraceTarget::Kind::Descriptor:
        fd = target.fd;
        break;
      case TraceTarget::Kind::File: {
        // Close-on-exec: a child reads GIT_TRACE and opens the file itself.
        const int opened = ::open(target.path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
        if (opened < 0) {
          const int error = errno;
          warn("could not open '" + target.path + "' for tracing: " + std::strerror(error));
          return;
        }
        fd = opened;
        break;
      }
      case TraceTarget::Kind::Unknown:
        warn("unknown trace value for 'GIT_TRACE': " + std::string(std::getenv("GIT_TRACE")) +
             "; to trace into a file, set GIT_TRACE to an absolute pathname (starting with /)");
        return;
    }
    const auto bare_kind = parse_trace_value(std::getenv("GIT_TRACE_BARE")).kind;
    bare = bare_kind == TraceTarget::Kind::Descriptor || bare_kind == TraceTarget::Kind::File;
  }
};

// Never destroyed: a thread or a destructor may trace while the process
// ends. The file it opened is closed by the exit.
TraceState& state() {
  static TraceState* const s = new TraceState;
  return *s;
}

bool plain_word(std::string_view word) {
  constexpr std::string_view kPunctuation = "+,-./:=@_^";
  for (const char c : word) {
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    if (!alnum && kPunctuation.find(c) == std::string_view::npos) return false;
  }
  return !word.empty();
}

}  // namespace

TraceTarget parse_trace_value(const char* value) {
  if (!value || !*value || std::strcmp(value, "0") == 0 || ::strcasecmp(value, "false") == 0) return {};
  if (std::strcmp(value, "1") == 0 || ::strcasecmp(value, "true") == 0)
    return {TraceTarget::Kind::Descriptor, STDERR_FILENO, {}};
  if (value[0] >= '2' && value[0] <= '9' && value[1] == '\0')
    return {TraceTarget::Kind::Descriptor, value[0] - '0', {}};
  if (value[0] == '/') return {TraceTarget::Kind::File, 0, value};
  return {TraceTarget::Kind::Unknown, 0, {}};
}

bool trace_enabled() noexcept { return state().fd.load(std::memory_order_relaxed) != 0; }

std::string format_trace_line(const std::timespec& now, std::string_view file, int line, std::string_view message,
                              bool bare) {
  std::string out;
  if (!bare) {
    std::tm tm{};
    ::localtime_r(&now.tv_sec, &tm);
    char stamp[32];
    std::snprintf(stamp, sizeof stamp, "%02d:%02d:%02d.%06ld ", tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<long>(now.tv_nsec / 1000));
    out = stamp;
    out.append(file).append(":").append(std::to_string(line));
    out.append(out.size() < kMessageColumn ? kMessageColumn - out.size() : 1, ' ');
  }
  out.append(kPrefix).append(message).push_back('\n');
  return out;
}

void trace_write(std::string_view file, int line, std::string_view message) noexcept {
  TraceState& s = state();
  const int fd = s.fd.load(std::memory_order_relaxed);
  if (fd == 0) return;
  try {
    std::timespec now{};
    ::clock_gettime(CLOCK_REALTIME, &now);
    const std::string text = format_trace_line(now, file, line, message, s.bare);
    // One write(2) for the line: on a pipe (up to PIPE_BUF) and on an
    // O_APPEND file it lands whole. A short write is finished, as git's
    // write_in_full does, rather than lose the line's end.
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int error = n < 0 ? errno : EIO;
        if (s.fd.exchange(0) != 0) warn(std::string("unable to write trace for GIT_TRACE: ") + std::strerror(error));
        return;
      }
      done += static_cast<std::size_t>(n);
    }
  } catch (...) {
    // No memory for a trace line: the command goes on untraced.
  }
}

std::string quote_argv_pretty(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& word : argv) {
    out.push_back(' ');
    if (plain_word(word)) {
      out += word;
      continue;
    }
    out.push_back('\'');
    for (const char c : word) {
      // ' and ! leave the quotes (! is history expansion in an
      // interactive shell), as git quotes them.
      if (c == '\'' || c == '!') out.append("'\\").append(1, c).append("'");
      else out.push_back(c);
    }
    out.push_back('\'');
  }
  return out;
}

}  // namespace jpblob
