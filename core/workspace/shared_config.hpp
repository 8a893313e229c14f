// `.jpblobconfig`: the settings a team shares by committing them, read like
// git-lfs's `.lfsconfig` (git config syntax), so that every teammate
// commits the same bytes (docs/FORMAT.md, "Shared settings").
//
// The file is input someone else wrote: it is read from the top of the
// work tree without following a link, and its bytes are handed to git to
// read as a config file (core/git/config_reader: read_config_text), never
// following `include.path` outside the repository; only the keys that
// change committed bytes are taken from it.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/base/safe_path.hpp"

namespace jpblob {

inline constexpr std::string_view kSharedConfigFile = ".jpblobconfig";

// The keys `.jpblobconfig` decides, whatever a personal git config or
// `git -c` says: they change the bytes clean commits.
bool is_shared_key(std::string_view key);

// What `.jpblobconfig` says, as far as it can be read.
struct SharedConfig {
  // The shared keys it sets, lowercased, in file order (the last one wins).
  std::vector<std::pair<std::string, std::string>> values;
  // Why the file was ignored, one line naming it (and the line): a shared
  // file is committed by someone else, so a bad one never fails a command.
  std::vector<std::string> warnings;
};

// The shared keys set by `.jpblobconfig` at the top of `work_tree`; empty
// when there is no such file, and then no git process runs. Never throws
// for the file itself: a file that cannot be read (a folder, a link, a
// FIFO, unreadable, over 1 MiB) or that git refuses is ignored whole, with
// one warning. Checking each value is the caller's (load_settings), which
// ignores a bad one with a warning too.
SharedConfig read_shared_config(const SafeDir& work_tree);

// The same for the bytes of a `.jpblobconfig` (one a commit holds, say):
// never throws; a file git refuses is ignored whole, with one warning.
SharedConfig shared_config_of(std::string_view text);

}  // namespace jpblob
