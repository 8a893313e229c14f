// `git-jpblob pre-commit` (SPEC §6): for each conversation staged in
// $GIT_INDEX_FILE that differs from HEAD (every one on a first commit):
// 1. if the staged version still holds inline payloads (the filter was not
//    installed), clean it and stage the result, keeping the entry's stat
//    data so `git status` stays clean;
// 2. collect every reference it holds;
// 3. stage each referenced blob file not already in the index, verifying
//    it (gzip, SHA-256 against its name, size against the reference); and
//    verify blob entries that are new against HEAD;
// 4. refuse the commit when a referenced blob is missing, corrupt, or
//    tracked but modified in the work tree.
// Only referenced blobs are staged: orphans stay untracked.
//
// Index files: `git commit` and `git commit -a` hand the hook the index
// they are about to commit ($GIT_DIR/index.lock); `git commit <paths>` hands
// it a temporary index (next-index-<pid>.lock) and commits the real one
// (index.lock) afterwards, so the hook stages into both. The cost grows with
// the conversations that changed, not with the size of the repository.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "core/base/problem.hpp"

namespace jpblob {

struct PreCommitReport {
  std::size_t conversations = 0;  // changed conversations checked
  std::size_t restaged = 0;       // conversations cleaned by the hook
  std::size_t blobs_staged = 0;   // blob files added to the index
  std::size_t restored = 0;       // of those, written again from their kept copies (core/lean/kept_copies)
  std::vector<Problem> problems;      // one each; non-empty refuses the commit
  std::vector<std::string> warnings;  // one line each (a bad .jpblobconfig)
};

// Runs the hook for a commit in `cwd`. Throws Error when the repository or
// index cannot be read or written.
PreCommitReport run_pre_commit_hook(const std::filesystem::path& cwd);

}  // namespace jpblob
