// Running independent work items on the machine's cores.
#pragma once

#include <cstddef>
#include <functional>

namespace jpblob {

// Calls fn(i) for every i in [0, n), on up to `max_threads` threads (0: one
// per core, at most 8), the caller's among them; the others only while the
// process has a worker slot for each (take_worker_slot), so that pools
// started inside pools stay within the descriptor limit. Items must be independent. The first exception
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

// One of the process's worker_slots() (core/base/descriptors.hpp) for a
// thread beyond its caller: true when one was free, and taken. Every
// taken slot is given back once its thread ends.
bool take_worker_slot();
void give_back_worker_slot();

}  // namespace jpblob
