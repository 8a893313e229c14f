// Running independent work items on the machine's cores.
#pragma once

#include <cstddef>
#include <functional>

namespace jpblob {

// Calls fn(i) for every i in [0, n), on up to `max_threads` threads (0: one
// per core, at most 8). Items must be independent. The first exception
// thrown by any item is rethrown after all threads have stopped; the items
// not yet started are skipped.
void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn,
                  unsigned max_threads = 0);

// Threads for work that mostly waits on the disk (reading or deleting
// thousands of small files): where the file system discards each freed
// block before unlink(2) returns (ext4 mounted with -o discard), one
// deletion at a time waits for each in turn, and the waits overlap
// whatever the core count.
inline constexpr unsigned kDiskWaiters = 8;

}  // namespace jpblob
