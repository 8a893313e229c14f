// `git jpblob migrate`: every document in the work tree rewritten in its
// cleaned form, in place (RFD 066 phase 4), so JP with RFD 066 reads the
// references directly.
#pragma once

#include <string>
#include <vector>

#include "progress.hpp"
#include "workspace.hpp"

namespace jpblob {

struct MigrateReport {
  std::vector<std::string> rewritten;  // documents changed (or that would be)
  std::size_t unchanged = 0;
  std::vector<std::string> skipped;    // not readable as their kind: left alone, with why
};

// For each document: store its blobs first, then replace the file
// atomically, so an interruption at any point leaves every file whole and
// every blob it references present; running again finishes the job.
MigrateReport run_migrate(const Workspace& ws, bool dry_run, const Progress& progress);

}  // namespace jpblob
