// `git jpblob gc`: deletes the blobs nothing needs. Policy only: the live
// set says what is needed, the store lists and deletes, the git module
// unstages.
//
// LevelDB's cleanup: build the live set, list the store, delete what is not
// live, and delete nothing after any error while gathering. The age is
// checked again just before each deletion, relative to the folder the store
// opened. Both homes (the work-tree store and the kept folder) are listed by
// name and only what nothing references is stat-ed, by one rule (a link or
// folder named like a blob is Foreign, never deleted nor followed: e2e
// hostile_repos). A work-tree file is deleted only when git can give it back
// or nothing can ask for it (core/store/blob_lookup.hpp: git's objects are
// the truth of a committed blob).
//
// Lifetimes are git's (since 2026-11-28): a blob whose only copy is outside
// git's objects (a kept copy, a work-tree file) lives as long as git keeps an
// unreachable object, gc.pruneExpire, `--prune` overriding it as `git gc
// --prune` does. An hour, the rule before, lost to `reset --hard` a
// conversation's tool output that `git fsck --lost-found` gave back. Why new
// blobs are not git objects from the start, which git's own gc and
// lost-found would then cover: `git hash-object -w` of 2,000 blobs of 6 KB
// gzip took 2.66 s, 1.3 ms each, every gzip deflated again by git's zlib,
// where a kept copy costs a link or one write. A pack per filter process
// would remove that cost, but needs a pack writer that survives the filter
// being killed mid-pack and a keep-alive for an unreferenced pack (git
// prunes by the pack's age); until then the kept folder, under git's
// lifetime, protects the same bytes as long.
//
// Where the time goes is the disk's waits, not what gc reads (5,000
// conversations, 100,000 blobs, 10,000 orphans in no git object: 3.47x its
// floor before, 2.32x after; perf sched_switch, strace, phase timers). Each
// unlink waited for ext4 (mounted `discard`) to discard the freed block, so
// deletions run on eight threads; `has_object` does not refresh the pack
// list on a miss (a false "absent" only keeps more); the reflog pass skips
// versions the live set read (LiveSet::versions) and its set is asked before
// git's objects; the live set's walk hands gc the temporaries, so no second
// walk. Delete phase on a busy disk 6.2 s to 1.5 s; reflog pass ~300 ms to
// ~20 ms; the scaling row (2,500 to 5,000) 1.71x-1.76x, where it swung from
// 0.3x to 3.3x with the disk's load. What bounds gc as conversations grow:
// bench/NOTES.md.
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
  std::size_t packs_released = 0;    // pending packs handed back to git's gc (core/lean/pending_packs)
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
