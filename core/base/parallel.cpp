#include "core/base/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace jpblob {

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
  // A thread the system will not give (ulimit -u, memory) means fewer of
  // them, down to this one: the items are the same either way. Unwinding
  // past a running std::thread would end the process.
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      pool.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace jpblob
