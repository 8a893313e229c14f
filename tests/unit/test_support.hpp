// Helpers shared by the unit tests: a fresh temporary folder per test, shell
// commands for driving real git, and the fixtures folder.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace jpblob::test {

// A fresh folder removed (with everything in it) on destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& rel) const { return path_ / rel; }

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  int status;  // exit status, or 128 + signal
  std::string out;
  std::string err;
};

// Runs `command` with /bin/sh in `cwd`, feeding `input` on stdin.
CommandResult run(const std::string& command, const std::filesystem::path& cwd,
                  const std::string& input = "");

// Runs a command and fails the test when it exits non-zero; returns stdout.
std::string must(const std::string& command, const std::filesystem::path& cwd);

// Single-quotes a string for /bin/sh.
std::string shell_quote(const std::string& s);

// `n` bytes of any value, the same for the same seed.
std::string random_bytes(std::size_t n, unsigned seed);

void write_text(const std::filesystem::path& path, const std::string& text);
std::string read_text(const std::filesystem::path& path);

// ../shared/fixtures/jp-workspace/.jp/conversations, or nullopt when the
// shared folder is absent (tests then skip).
std::optional<std::filesystem::path> fixture_conversations();

// The agent sessions (*.jsonl) of ../shared/realdata/turn3/sessions and
// ../shared/realdata/pi-sessions, sorted; none when the folder is absent.
std::vector<std::filesystem::path> realdata_sessions();

// Every events.json under the fixtures, .archive included.
std::vector<std::filesystem::path> fixture_event_files();

// Regular files under `dir`, at any depth; 0 when it does not exist.
std::size_t count_files(const std::filesystem::path& dir);

// The message of the jpblob::Error `fn` throws, or "" when it throws none.
std::string error_of(const std::function<void()>& fn);

// Sets an environment variable for the scope, restoring it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);  // value nullptr unsets
  ~ScopedEnv();

 private:
  std::string name_;
  std::optional<std::string> saved_;
};

// A git repository in a temporary folder, with an isolated HOME and config
// so nothing from the machine leaks in.
class GitSandbox {
 public:
  GitSandbox();
  const std::filesystem::path& repo() const { return repo_; }
  std::string git(const std::string& args) const { return must("git " + args, repo_); }

 private:
  TempDir dir_;
  std::filesystem::path repo_;
  ScopedEnv home_, global_, system_, nosystem_;
};

// A repository of an object format ("sha1", "sha256") in a temporary
// folder, with an isolated HOME, no system config and no GIT_INDEX_FILE
// from a hook's environment.
struct FormatRepo {
  TempDir home;
  ScopedEnv home_env{"HOME", home.path().c_str()};
  ScopedEnv nosystem{"GIT_CONFIG_NOSYSTEM", "1"};
  ScopedEnv index_env{"GIT_INDEX_FILE", nullptr};
  TempDir dir;
  explicit FormatRepo(const std::string& format) {
    must("git init -q --object-format=" + format + " . && git config user.name t && git config user.email t@t",
         dir.path());
  }
  std::string git(const std::string& args) const { return must("git " + args, dir.path()); }
  void write(const std::string& path, const std::string& text) const { write_text(dir / path, text); }
};

}  // namespace jpblob::test
