// One runner per command of the definition (cli/definition.hpp): what
// cli/command_line calls once the line is parsed.
#pragma once

#include <map>
#include <string>

#include "cli/command_line.hpp"

namespace jpblob {

std::map<std::string, cli::Runner> command_runners(const std::string& version);
// `help [-a] [<command>]`: the command list, or the command's manual.
int run_help(const std::string& topic, bool all);
// What an unknown command gets: git-lfs's name pointed to ours, or git's
// "did you mean" message.
std::string unknown_command_text(const std::string& typed);

}  // namespace jpblob
