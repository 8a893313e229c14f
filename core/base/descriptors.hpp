// Open descriptors: git-jpblob lives within the soft RLIMIT_NOFILE, as git
// itself does, and never raises it. git keeps 25 of the limit for the
// standard streams and its own work and lets its open packs have the rest
// (packfile.c, open_packed_git_1: "Save 3 for stdin/stdout/stderr, 22 for
// work"). git-jpblob keeps the same headroom and gives each kind of bulk
// holder a share of what is left (spare_descriptors):
//   - the store's new blobs pending between two syncs (BlobStore::put_all),
//     one leaf folder each: half;
//   - libgit2's open pack files (GIT_OPT_SET_MWINDOW_FILE_LIMIT): a quarter;
//   - threads beyond their caller (parallel_for, the delayed smudges' pool),
//     kDescriptorsPerWorker each: a quarter (worker_slots).
// A folder walk holds one a level (SafeDir::find_files). So a low limit
// means fewer at once, never "Too many open files" (e2e descriptor_limit,
// under `ulimit -n 64`; 16 by hand). Before (issue 44), `git add` of the 21
// real conversations failed under `ulimit -n 64` where plain git's worked:
// put_all kept at least 64 new blobs pending, a leaf folder's descriptor
// each, and each pool started inside another took threads of its own. One
// count of worker slots for the whole process now bounds every pool
// (Parallel.PoolsInsidePoolsStayWithinTheDescriptorLimit).
#pragma once

#include <cstddef>

namespace jpblob {

// git's reserve (see above).
inline constexpr std::size_t kDescriptorHeadroom = 25;

// What one worker thread holds at its peak: a folder and the one above it
// while a path is opened below them, a file, and a temporary file.
inline constexpr std::size_t kDescriptorsPerWorker = 4;

// The soft limit on open descriptors, read on each call (a caller may
// lower it). An unlimited or unreadable one counts as 1 << 20.
std::size_t descriptor_limit();

// What the limit leaves beyond kDescriptorHeadroom; at least 1.
std::size_t spare_descriptors();

// How many threads beyond their callers may run at once in the whole
// process: a quarter of spare_descriptors(), kDescriptorsPerWorker each;
// at least 1.
std::size_t worker_slots();

}  // namespace jpblob
