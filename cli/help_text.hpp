// What the terminal shows of the definition (cli/definition.hpp), in git's
// shapes: `git jpblob` alone and `help` list the commands by group, `-h`
// prints a command's usage and options (git's parse-options layout), and
// `--git-completion-helper` answers bash completion as git's own commands do.
#pragma once

#include <string>

#include "cli/definition.hpp"

namespace jpblob::cli {

// "git jpblob gc [-n | --dry-run] [--prune=<date>] ...": one line.
std::string synopsis(const CommandDef& command);
// The synopsis lines of a command, one per subcommand when it has them.
std::string usage_lines(const CommandDef& command);
// `-h`: "usage: …", a blank line, then each option and argument with its help.
std::string usage_text(const CommandDef& command);
// A command's usage, description and examples, as plain text: what
// `--help` shows where no manual page is installed.
std::string help_page(const CommandDef& command);
// `git jpblob`, `help` and (with `all`) `help -a`.
std::string command_list(const Definition& def, bool all);
// A command with subcommands given alone (`git jpblob artifacts`): them,
// as `git jpblob` alone lists the commands.
std::string subcommand_list(const CommandDef& command);
// What `<command> --git-completion-helper` prints: its options (long
// names, "=" after one that takes a value) or its subcommands.
std::string completion_words(const CommandDef& command);
// The text of a description paragraph with its marks (`x`, {x}) taken out.
std::string plain(const std::string& marked);

}  // namespace jpblob::cli
