// The one-shot filter commands git runs once per file when no long-running
// process is configured: `git-jpblob clean [<path>]` and
// `git-jpblob smudge [<path>]`. Both read the whole file on stdin and write
// the result on stdout; warnings go to stderr, one line each.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace jpblob {

struct FilterArgs {
  std::string path;  // git's %f, for messages only
  std::optional<std::filesystem::path> store_dir;
};

// Throw Error on failure; the caller maps it to an exit status.
void run_clean(const FilterArgs& args);
void run_smudge(const FilterArgs& args);

}  // namespace jpblob
