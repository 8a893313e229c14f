#include "core/git/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/base/trace.hpp"

extern char** environ;

namespace jpblob {

namespace {

// Spawn attributes giving the child the default SIGPIPE action: this
// program ignores SIGPIPE (to see EPIPE as an error), and an ignored signal
// survives exec, which would keep `yes | head` pipelines in a child running.
struct DefaultSignals {
  posix_spawnattr_t attr;
  DefaultSignals() {
    posix_spawnattr_init(&attr);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &set);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  }
  ~DefaultSignals() { posix_spawnattr_destroy(&attr); }
};

// A program about to start, as git traces one (run-command.c,
// trace_run_command): "cd <dir>; <VAR>=<value> … <argv>", quoted where the
// shell would need it.
std::string traced_command(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                           const Environment& overrides) {
  std::string line = "run_command: cd" + quote_argv_pretty({cwd.string()}) + ";";
  for (const auto& [name, value] : overrides) line += " " + name + "=" + quote_argv_pretty({value}).substr(1);
  return line + quote_argv_pretty(argv);
}

// Starts argv[0] (looked up on PATH) with the given file actions, in `cwd`,
// and frees the actions. Throws Error when it cannot be started.
pid_t spawn(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
            posix_spawn_file_actions_t& actions, const Environment& overrides = {}) {
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // This process's environment with `overrides` set in place.
  std::vector<std::string> owned;
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e) {
    const std::string_view entry(*e);
    const bool replaced = std::any_of(overrides.begin(), overrides.end(), [&](const auto& kv) {
      return entry.size() > kv.first.size() && entry.starts_with(kv.first) && entry[kv.first.size()] == '=';
    });
    if (!replaced) envp.push_back(*e);
  }
  for (const auto& [name, value] : overrides) owned.push_back(name + "=" + value);
  for (auto& e : owned) envp.push_back(e.data());
  envp.push_back(nullptr);
  JPBLOB_TRACE(traced_command(argv, cwd, overrides));
  pid_t pid = 0;
  const DefaultSignals signals;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, &signals.attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw errno_error("cannot run " + argv[0], rc);
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

void start_detached(const std::vector<std::string>& argv, const std::filesystem::path& cwd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (const int fd : {0, 1, 2})
    posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0);
  posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  DefaultSignals signals;
  posix_spawnattr_setflags(&signals.attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSID);
  JPBLOB_TRACE(traced_command(argv, cwd, {}) + " &");
  pid_t pid = 0;
  const int rc = ::posix_spawn(&pid, args[0], &actions, &signals.attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) throw errno_error("cannot run " + argv[0], rc);
}

std::filesystem::path this_executable() {
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw Error("cannot find this program's executable: " + ec.message());
  return self;
}

std::vector<std::string> split_records(const std::string& out, char separator) {
  std::vector<std::string> records;
  std::size_t pos = 0;
  while (pos < out.size()) {
    const auto end = out.find(separator, pos);
    records.push_back(out.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
    pos = end == std::string::npos ? out.size() : end + 1;
  }
  return records;
}

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

std::vector<std::string_view> split_fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= line.size()) {
    const std::size_t space = std::min(line.find(' ', start), line.size());
    out.push_back(line.substr(start, space - start));
    start = space + 1;
  }
  return out;
}

std::optional<std::filesystem::path> find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (!path) return std::nullopt;
  for (const std::string& dir : split_records(path, ':')) {
    if (dir.empty()) continue;  // the current folder, a different one for every command git runs
    const std::filesystem::path candidate = std::filesystem::path(dir) / name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
  }
  return std::nullopt;
}

std::string shell_quote(const std::string& word) {
  const bool plain = !word.empty() && word.find_first_not_of(
                                          "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789/._-+:@%=,") == std::string::npos;
  if (plain) return word;
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

CommandOutput run_command(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const std::string& input, const Environment& environment) {
  bool given = input.empty();
  return run_command(argv, cwd, [&](std::string& chunk) {
    if (given) return false;
    chunk = input;  // one copy; the callers' inputs are lists of paths
    given = true;
    return true;
  }, environment);
}

CommandOutput run_command(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          const InputChunks& next_input, const Environment& environment) {
  int in[2], out[2], err[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)
    throw errno_error("cannot create a pipe", errno);
  Fd in_r(in[0]), in_w(in[1]), out_r(out[0]), out_w(out[1]), err_r(err[0]), err_w(err[1]);
  // The first chunk before the program starts: no input at all is
  // /dev/null, as a program run from a terminal-less job expects.
  std::string chunk;
  bool more = next_input(chunk);
  std::exception_ptr failure;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (!more) posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  else posix_spawn_file_actions_adddup2(&actions, in_r.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err_w.get(), 2);
  const pid_t pid = spawn(argv, cwd, actions, environment);
  in_r = Fd();
  out_w = Fd();
  err_w = Fd();
  if (!more) in_w = Fd();
  else ::fcntl(in_w.get(), F_SETFL, O_NONBLOCK);

  CommandOutput result{};
  std::size_t fed = 0;
  pollfd fds[3] = {{out_r.get(), POLLIN, 0}, {err_r.get(), POLLIN, 0},
                   {in_w.valid() ? in_w.get() : -1, POLLOUT, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open = 2;
  char buf[65536];
  auto stop_feeding = [&] {
    in_w = Fd();  // done, or the program stopped reading: it sees the end
    fds[2].fd = -1;
  };
  while (open > 0 || fds[2].fd >= 0) {
    if (::poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      throw errno_error("cannot wait for " + argv[0], errno);
    }
    if (fds[2].fd >= 0 && fds[2].revents) {
      const ssize_t n = ::write(fds[2].fd, chunk.data() + fed, chunk.size() - fed);
      if (n > 0) fed += static_cast<std::size_t>(n);
      if (n < 0 && errno != EAGAIN && errno != EINTR) {
        stop_feeding();
      } else if (fed == chunk.size()) {
        // The next chunk is made only once this one is taken: what is in
        // memory is one chunk, however long the input.
        chunk.clear();
        fed = 0;
        try {
          while (chunk.empty() && (more = next_input(chunk))) {
          }
        } catch (...) {
          failure = std::current_exception();
          more = false;
        }
        if (!more) stop_feeding();
      }
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !fds[i].revents) continue;
      const ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        sinks[i]->append(buf, static_cast<std::size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open;
      }
    }
  }
  result.status = wait_for(pid);
  // The program saw its input end early and has exited: the producer's
  // error is the one to tell.
  if (failure) std::rethrow_exception(failure);
  return result;
}

int stream_command(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                   const std::function<void(std::string_view)>& on_output,
                   const std::optional<std::string>& input) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw errno_error("cannot create a pipe", errno);
  Fd out_r(out[0]), out_w(out[1]);
  // The input in a file of memory the program reads at its own pace: no
  // pipe to keep fed while its output is read.
  Fd in;
  if (input) {
    in = Fd(::memfd_create("jpblob-input", MFD_CLOEXEC));
    if (!in.valid()) throw errno_error("cannot hold the input of " + argv[0], errno);
    write_all(in.get(), *input, "the input of " + argv[0]);
    if (::lseek(in.get(), 0, SEEK_SET) != 0) throw errno_error("cannot rewind the input of " + argv[0], errno);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (in.valid()) posix_spawn_file_actions_adddup2(&actions, in.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, out_w.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, out_w.get(), 2);
  const pid_t pid = spawn(argv, cwd, actions);
  out_w = Fd();
  char buf[65536];
  std::exception_ptr failure;
  for (;;) {
    const ssize_t n = ::read(out_r.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (failure) continue;  // keep draining so the program is not blocked
    try {
      on_output(std::string_view(buf, static_cast<std::size_t>(n)));
    } catch (...) {
      failure = std::current_exception();
    }
  }
  const int status = wait_for(pid);
  if (failure) std::rethrow_exception(failure);
  return status;
}

}  // namespace jpblob
