#include "core/base/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "core/base/descriptors.hpp"

namespace jpblob {

namespace {
std::atomic<std::size_t> extra_threads{0};
}  // namespace

bool take_worker_slot() {
  const std::size_t slots = worker_slots();
  std::size_t taken = extra_threads.load();
  while (taken < slots)
    if (extra_threads.compare_exchange_weak(taken, taken + 1)) return true;
  return false;
}

void give_back_worker_slot() { --extra_threads; }

void parallel_for(std::size_t n, const std::function<void(std::size_t)>& fn, unsigned max_threads) {
  if (max_threads == 0) max_threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  const std::size_t threads = std::min<std::size_t>(max_threads, n);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::exception_ptr error;
  std::mutex error_mutex;
  auto work = [&] {
    for (std::size_t i; !failed && (i = next++) < n;) {
      try {
        fn(i);
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> pool;
  // A thread the system will not give (ulimit -u, memory), or one the
  // descriptor limit has no room for (worker_slots: pools inside pools
  // would multiply), means fewer of them, down to this one: the items are
  // the same either way. Unwinding past a running std::thread would end
  // the process.
  for (std::size_t t = 1; t < threads && take_worker_slot(); ++t) {
    try {
      pool.emplace_back([&] {
        work();
        give_back_worker_slot();
      });
    } catch (const std::system_error&) {
      give_back_worker_slot();
      break;
    }
  }
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace jpblob
