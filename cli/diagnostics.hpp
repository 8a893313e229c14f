// The commands that explain git-jpblob's set-up, as git-lfs's `version`,
// `env` and `ls-files` do: what runs, which config set it, what is in
// place, and what a commit or the index holds. Each prints to standard
// output; --json output is described in docs/FORMAT.md.
#pragma once

#include <optional>
#include <string>

namespace jpblob {

// "git-jpblob <v>", "git <v>", "libgit2 <v>", one a line: `version` and
// `--version`.
std::string version_text(const std::string& jpblob_version);

// `env`: one key=value line each (or one JSON object): this program's path,
// the first git-jpblob on PATH (the one git runs), its version, git's and
// libgit2's versions, the config entries install writes with the scope and
// file that set each, and inside a work tree whether it is lean, its
// jpblob.lean, each hook and whose it is, the hook manager, the store and
// the kept folder. Asks, never changes anything.
void run_env_command(const std::string& jpblob_version, bool json);

// `ls-files [<commit>]`: each document in the index (or `commit`), then
// one line per blob it references, "  present <hex> <size>" or
// "  missing <hex> <size>" (size "-" when undeclared).
void run_ls_files_command(const std::optional<std::string>& commit, bool json);

// `status`: whether the work tree is lean, how many conversations of the
// index have every blob committed, some staged, some not staged yet (in the
// git folder, or an untracked blob file) or some in no copy, then the
// conversations of each but the first, naming each missing blob.
void run_status_command(bool json);

}  // namespace jpblob
