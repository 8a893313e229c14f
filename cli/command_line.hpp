// The parser, built from the definition (cli/definition.hpp) and nothing
// else: every command, option and argument CLI11 knows comes from
// cli/commands.json, and the code that runs a command reads what was given
// by the definition's names (Parsed). git's conventions, before CLI11 sees
// the line: `-h` prints the usage and exits 129, `--help` shows the
// command's manual page, `--git-completion-helper` answers bash
// completion. A command line CLI11 refuses exits 129 (git's usage status).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "cli/definition.hpp"

namespace jpblob::cli {

// What the command line gave one command, by the definition's names: an
// option's long name without dashes ("dry-run"), or an argument's name.
// Asking for a name no command defines is a programming error and throws
// std::logic_error, so a misspelt name fails the first test that runs it.
class Parsed {
 public:
  Parsed(const Definition& def, const CommandDef& command) : def_(&def), command_(&command) {}
  bool flag(std::string_view key) const;
  std::optional<std::string> value(std::string_view key) const;
  std::vector<std::string> values(std::string_view key) const;
  const CommandDef& command() const { return *command_; }
  // Where the parser writes an option or argument (std::map: CLI11 keeps
  // pointers to these while it parses).
  bool& flag_slot(const std::string& key) { return flags_[key]; }
  std::vector<std::string>& value_slot(const std::string& key) { return values_[key]; }

 private:
  void check(std::string_view key) const;
  const Definition* def_;
  const CommandDef* command_;
  std::map<std::string, bool, std::less<>> flags_;
  std::map<std::string, std::vector<std::string>, std::less<>> values_;
};

// Runs one command: returns its exit status, or throws (main maps the
// exception to a status).
using Runner = std::function<int(const Parsed&)>;

struct Outcome {
  int status = 0;
  std::string command;  // "gc", "artifacts gc": what ran, for messages
};

class CommandLine {
 public:
  // `runners` holds one entry per command of the definition that has no
  // subcommands, keyed "gc" or "artifacts gc"; a missing one throws
  // std::logic_error here.
  CommandLine(const Definition& def, std::map<std::string, Runner> runners);
  // argv[1] must name a command (main handles the rest). Prints usage
  // errors itself (exit 129); other failures propagate as exceptions.
  Outcome run(int argc, char** argv);

 private:
  const Definition& def_;
  std::map<std::string, Runner> runners_;
};

// What `-h` does for `command`, and what a wrong command line does:
// usage on the stream, exit status 129.
constexpr int kUsageStatus = 129;

// Shows `command`'s manual page (man git-jpblob-<name>), or, with no page
// installed, its help page on standard output. Returns the exit status.
int show_manual(const CommandDef& command);

}  // namespace jpblob::cli
