#include "test_support.hpp"

#include <random>

#include "core/base/error.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace jpblob::test {

namespace fs = std::filesystem;

TempDir::TempDir() {
  std::string tmpl = (fs::temp_directory_path() / "jpblob-test-XXXXXX").string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
  path_ = fs::canonical(tmpl);
}

TempDir::~TempDir() {
  std::error_code ec;
  // Tests may leave read-only folders behind; make them writable first.
  for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::end(it);
       it.increment(ec))
    if (it->is_directory(ec) && !it->is_symlink(ec))
      fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
  fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
  fs::remove_all(path_, ec);
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

CommandResult run(const std::string& command, const fs::path& cwd, const std::string& input) {
  int in[2], out[2], err[2];
  if (::pipe(in) || ::pipe(out) || ::pipe(err)) throw std::runtime_error("pipe failed");
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    ::dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) ::close(fd);
    if (::chdir(cwd.c_str()) != 0) ::_exit(127);
    ::execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::close(err[1]);
  ::fcntl(in[1], F_SETFL, O_NONBLOCK);
  CommandResult result{};
  std::size_t fed = 0;
  bool in_open = true;
  if (input.empty()) {
    ::close(in[1]);
    in_open = false;
  }
  bool out_open = true, err_open = true;
  char buf[65536];
  while (out_open || err_open) {
    pollfd fds[3];
    int n = 0;
    if (out_open) fds[n++] = {out[0], POLLIN, 0};
    if (err_open) fds[n++] = {err[0], POLLIN, 0};
    if (in_open) fds[n++] = {in[1], POLLOUT, 0};
    ::poll(fds, static_cast<nfds_t>(n), -1);
    for (int i = 0; i < n; ++i) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == in[1]) {
        ssize_t w = ::write(in[1], input.data() + fed, input.size() - fed);
        if (w > 0) fed += static_cast<std::size_t>(w);
        if (w < 0 && errno != EAGAIN) fed = input.size();
        if (fed == input.size()) {
          ::close(in[1]);
          in_open = false;
        }
        continue;
      }
      ssize_t r = ::read(fds[i].fd, buf, sizeof buf);
      if (r <= 0) {
        ::close(fds[i].fd);
        (fds[i].fd == out[0] ? out_open : err_open) = false;
      } else {
        (fds[i].fd == out[0] ? result.out : result.err).append(buf, static_cast<std::size_t>(r));
      }
    }
  }
  if (in_open) ::close(in[1]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

std::string must(const std::string& command, const fs::path& cwd) {
  auto r = run(command, cwd);
  EXPECT_EQ(r.status, 0) << "command failed: " << command << "\n" << r.err;
  if (r.status != 0) throw std::runtime_error("command failed: " + command + "\n" + r.err);
  return r.out;
}

void write_text(const fs::path& path, const std::string& text) {
  if (path.has_parent_path()) fs::create_directories(path.parent_path());
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path.string());
}

std::string read_text(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path.string());
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::optional<fs::path> fixture_conversations() {
  // The shared folder sits beside the project's checkout.
  for (fs::path dir = fs::path(JPBLOB_SOURCE_DIR); dir.has_parent_path() && dir != dir.parent_path();
       dir = dir.parent_path()) {
    fs::path candidate = dir.parent_path() / "shared/fixtures/jp-workspace/.jp/conversations";
    if (fs::is_directory(candidate)) return candidate;
  }
  return std::nullopt;
}

std::vector<fs::path> realdata_sessions() {
  std::vector<fs::path> files;
  for (fs::path dir = fs::path(JPBLOB_SOURCE_DIR); dir.has_parent_path() && dir != dir.parent_path();
       dir = dir.parent_path()) {
    const fs::path realdata = dir.parent_path() / "shared/realdata";
    if (!fs::is_directory(realdata)) continue;
    for (const char* sub : {"turn3/sessions", "pi-sessions", "turn4/claude-code"}) {
      std::error_code ec;
      for (auto it = fs::directory_iterator(realdata / sub, ec); !ec && it != fs::directory_iterator(); ++it)
        if (it->path().extension() == ".jsonl") files.push_back(it->path());
    }
    break;
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<fs::path> fixture_event_files() {
  std::vector<fs::path> files;
  auto root = fixture_conversations();
  if (!root) return files;
  for (auto& e : fs::recursive_directory_iterator(*root))
    if (e.path().filename() == "events.json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

ScopedEnv::ScopedEnv(const char* name, const char* value) : name_(name) {
  if (const char* old = std::getenv(name)) saved_ = old;
  if (value) ::setenv(name, value, 1);
  else ::unsetenv(name);
}

ScopedEnv::~ScopedEnv() {
  if (saved_) ::setenv(name_.c_str(), saved_->c_str(), 1);
  else ::unsetenv(name_.c_str());
}

GitSandbox::GitSandbox()
    : repo_(dir_.path() / "repo"),
      home_("HOME", dir_.path().c_str()),
      global_("GIT_CONFIG_GLOBAL", (dir_.path() / "gitconfig").c_str()),
      system_("GIT_CONFIG_SYSTEM", "/dev/null"),
      nosystem_("GIT_CONFIG_NOSYSTEM", "1") {
  fs::create_directories(repo_);
  write_text(dir_.path() / "gitconfig",
             "[user]\n\tname = Test\n\temail = test@example.com\n[init]\n\tdefaultBranch = main\n");
  git("init -q");
}

std::size_t count_files(const std::filesystem::path& dir) {
  std::size_t n = 0;
  if (!std::filesystem::exists(dir)) return 0;
  for (auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) ++n;
  return n;
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace jpblob::test
