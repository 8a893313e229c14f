// `git jpblob repair`: every corrupt blob file in the store, and every blob
// a document references that the store lacks, is written again from a good
// copy: git's objects first (any commit, the index, a partial clone's
// remote, git-lfs), else an inline payload of a work-tree document that
// holds the same bytes. What has no good copy anywhere is reported, and
// left as it is.
#pragma once

#include <string>
#include <vector>

#include "core/base/progress.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

struct RepairReport {
  std::size_t checked = 0;
  std::vector<std::string> repaired;       // store paths, relative to the workspace top
  std::vector<std::string> unrecoverable;  // one line each: path and why
};

RepairReport run_repair(const Workspace& ws, const Progress& progress);

}  // namespace jpblob
