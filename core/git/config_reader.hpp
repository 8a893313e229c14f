// Reading git config: the one way git-jpblob reads a setting.
//
// git has the rules (where a value comes from, its syntax, a file's
// grammar), so every value is git's answer, or libgit2's where no process
// is wanted, and no config file is parsed here:
// - ConfigReader::of(repo) reads in-process, with no git process: the
//   settings every command and each filter start with (load_settings).
//   libgit2 1.5 ignores `git -c`, which git hands filters and hooks in
//   GIT_CONFIG_PARAMETERS; GitRepo::config puts those values on top of the
//   files, as git does, and with no repository they are all there is.
// - ConfigReader::through(git, scope) asks the git program (`git config`)
//   in `git`'s folder: one scope, or every scope as git reads them.
// - read_config_text reads a config file someone else wrote (a committed
//   `.jpblobconfig`) as git reads a file: `git config --file -
//   --no-includes`, as git-lfs reads `.lfsconfig`.
// An age or a lifetime is then read in git's expiry-date grammar
// (core/git/expiry_date).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"

namespace jpblob {

class ConfigReader {
 public:
  // In-process: `repo`'s config files (libgit2) with `git -c` on top; with
  // no repository (null), `git -c` alone. `repo` must outlive the reader.
  static ConfigReader of(const GitRepo* repo);
  // The git program run by `git`: every scope as git reads it (with
  // nullopt), or the one `scope`.
  static ConfigReader through(const GitCli& git, std::optional<ConfigScope> scope = std::nullopt);

  // The value of `key` (the last one git would use), nullopt when unset.
  // Throws Error when the config cannot be read.
  std::optional<std::string> get(const std::string& key) const;
  // The value in git's boolean syntax (true/yes/on/1, false/no/off/0, any
  // case), or in git's integer syntax (digits with an optional k, m or g; a
  // negative one refused). Throws Error naming `key` otherwise.
  std::optional<bool> get_bool(const std::string& key) const;
  std::optional<std::uint64_t> get_size(const std::string& key) const;
  // The value in git's canonical form for `type` ("bool-or-int": true,
  // false or a number), as git converts it; only through the git program
  // (Error otherwise). Throws Error when git refuses the value.
  std::optional<std::string> get_as(const std::string& key, const char* type) const;

 private:
  ConfigReader() = default;
  const GitRepo* repo_ = nullptr;
  std::optional<GitCli> git_;
  std::optional<ConfigScope> scope_;
};

// The entries of config-file text as git reads a file (`git config --file
// - --no-includes -z --list`, the text on its standard input; git runs
// at the root, where no repository is read): (key, value) in file order,
// section and variable names lowercased by git, a subsection as written,
// a key with no value as "true". `include.path` and `includeIf` are
// entries like any other, never followed. Throws Error starting with
// `name` when git refuses the text: "<name>, line <n>: …" when git names
// the line.
std::vector<std::pair<std::string, std::string>> read_config_text(std::string_view text, const std::string& name);

}  // namespace jpblob
