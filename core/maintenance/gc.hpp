// `git jpblob gc`: deletes the blobs nothing needs (docs/ARCHITECTURE.md,
// "gc"). Policy only: the live set says what is needed, the store lists and
// deletes, the git module unstages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/progress.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

struct GcOptions {
  bool dry_run = false;
  // How old an unreferenced blob must be to go (--prune=<date>, else
  // gc.pruneExpire: prune_expire()); INT64_MAX keeps every one.
  std::int64_t grace_seconds = 14 * 24 * 3600;
};

struct GcReport {
  struct Removed {
    std::string path;  // relative to the workspace top
    std::uint64_t bytes;
  };
  std::vector<Removed> removed;  // blobs (and stale temporary files) deleted
  std::uint64_t bytes_freed = 0;
  std::size_t kept_live = 0;
  std::size_t kept_young = 0;  // unreferenced but younger than the grace period
  std::size_t conversations = 0;  // distinct documents in the work trees and indexes, each once
  std::size_t retired_purged = 0;  // copies of kept folders commits set aside (KeptCopies::purge_retired)
  std::size_t unfinished_packs = 0;  // a killed hook's pack files (remove_unfinished_packs)
  bool dry_run = false;
};

// Deletes unreferenced blobs older than the grace period, stale temporary
// files too, with the folders they leave empty, and removes deleted
// tracked blobs from the index. Each file's age is checked again just
// before it is deleted. Throws Error, having deleted nothing, when the live
// set cannot be built.
GcReport run_gc(const Workspace& ws, const GcOptions& options, const Progress& progress);

// How long a blob whose only copy is outside git's objects lives when
// nothing references it: as long as git keeps an unreachable object
// (SPEC §7), gc.pruneExpire in any scope (`git -c` included), git's own
// default "2.weeks.ago" when unset. The date as written, for expiry_age.
std::string prune_expire(const Workspace& ws);

}  // namespace jpblob
