// Manual pages, as git shows them: `git jpblob <command> --help` and
// `git jpblob help <command>` run man for git-jpblob-<command>(1) (git
// turns `git jpblob --help` into `man git-jpblob` itself).
#pragma once

#include <string>

namespace jpblob {

// Replaces this process with `man <page>` when man finds the page
// (`man -w`), restoring the default SIGPIPE action first so the pager
// behaves. Returns only when there is no man program, no page, or the exec
// failed: the caller then prints its own help. Call before any output.
void exec_manual_page(const std::string& page);

}  // namespace jpblob
