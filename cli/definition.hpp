// The command line's one definition: cli/commands.json, compiled into the
// program. Every copy of the command line is made from it, so none can
// drift: the parser (cli/command_line), `help` and `-h` (cli/help_text),
// the manual pages and the README's command table (cli/man_pages, written
// by the jpblob-docs tool at build time and checked by the ctest
// `cli.readme`), and bash completion (`--git-completion-helper`, as git's
// own commands answer it).
//
// Text in descriptions is plain, with two marks: `literal` (bold in a
// manual page: commands, options, settings, what to type) and {name}
// (italic: a placeholder or a path). A paragraph whose lines all start
// with four spaces is shown as is.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace jpblob::cli {

struct OptionDef {
  std::string short_name;  // "-q", or empty
  std::string long_name;   // "--quiet"
  std::string value;       // "<date>" for an option that takes one; empty for a flag
  std::string check;       // "count" (0 or more), "positive" (1 or more), or empty
  bool required = false;
  bool value_optional = false;  // --prune alone, as git's --prune[=<date>]
  std::string help;
  // The name the command's code asks for: the long name without its dashes.
  std::string key() const { return long_name.substr(2); }
};

struct ArgumentDef {
  std::string name;
  std::string help;
  bool required = false;
  bool many = false;  // any number (or up to `count`)
  int count = 0;      // the most it takes, when many (0: no limit)
  bool after_dashdash = false;  // given after `--` (run's command)
};

enum class Group { Setup, Everyday, Plumbing };

struct CommandDef {
  std::string name;
  std::string path;  // what follows `git jpblob`: "gc", "artifacts gc"
  Group group = Group::Everyday;
  std::string summary;
  std::vector<ArgumentDef> arguments;
  std::vector<OptionDef> options;
  std::vector<std::vector<std::string>> exclusive;  // sets of options that exclude each other
  std::string argument_check;  // "existing-file": each argument names a file
  std::vector<std::string> description;  // paragraphs
  std::string exit_1;     // what exit status 1 means for this command, if it can exit 1
  std::string exit_note;  // a status the command sets otherwise (run: its command's)
  std::vector<std::string> examples;
  std::vector<std::string> see_also;
  std::vector<CommandDef> subcommands;  // artifacts gc, artifacts stats

  const OptionDef* option(std::string_view long_name) const;
  bool quiet() const { return option("--quiet") != nullptr; }
};

struct Definition {
  std::string program;  // git-jpblob
  std::string summary;
  std::vector<CommandDef> commands;
  // git-lfs's names for what git-jpblob calls otherwise: prune → gc.
  std::map<std::string, std::string> lfs_names;

  const CommandDef* command(std::string_view name) const;
  std::vector<std::string> names() const;
};

// The definition compiled into the program; parsed once, on first use.
const Definition& definition();
// Parses a definition's JSON text; throws std::runtime_error naming what is wrong.
Definition parse_definition(std::string_view json_text);

// Whether any command defines the option or argument `key` (a long name
// without dashes, or an argument's name): what cli/command_line checks so
// that a misspelt name in the code fails at once.
bool defines_key(const Definition& def, std::string_view key);

}  // namespace jpblob::cli
