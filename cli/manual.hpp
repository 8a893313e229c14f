// The manual page, for `git-jpblob --help` run directly (git turns
// `git jpblob --help` into `man git-jpblob` itself).
#pragma once

#include <string>
#include <string_view>

namespace jpblob {

// The example `help <command>` and `<command> --help` end with, as a
// footer; empty for a name that is no command.
std::string command_example(std::string_view command);

// Replaces this process with `man git-jpblob` when man finds the page
// (`man -w`), restoring the default SIGPIPE action first so the pager
// behaves. Returns only when there is no man program, no page, or the exec
// failed: the caller then prints its own help. Call before any output.
void exec_manual_page();

}  // namespace jpblob
