// Work on several threads when the system gives fewer, or none: a commit
// under `ulimit -u` or a small `ulimit -v` ended in std::terminate when a
// second thread could not be made (red team, 2026-11-27).
#include "core/base/parallel.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/base/descriptors.hpp"
#include "core/base/error.hpp"
#include "core/git/blob_pack.hpp"
#include "filter/delayed.hpp"

namespace jpblob {
namespace {

// This process's address space now, in bytes (/proc/self/statm: pages).
std::size_t address_space() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  return pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// Runs `body` in a child whose address space may grow by `room` bytes
// besides what `threads` threads' stacks (64 MiB each there) take: its
// exit status (4 if it threw), or 128 + the signal that ended it.
constexpr std::size_t kStack = 64u << 20;
template <typename Body>
int with_threads(unsigned threads, Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    // glibc reuses the stacks of threads that ended (earlier tests'): a
    // thread asks for a larger one than any of those, which must be mapped.
    pthread_attr_t attr;
    if (::pthread_attr_init(&attr) != 0 || ::pthread_attr_setstacksize(&attr, 64u << 20) != 0 ||
        ::pthread_setattr_default_np(&attr) != 0)
      ::_exit(3);
    const rlim_t limit = address_space() + threads * (kStack + (4u << 20)) + (2u << 20);
    const rlimit as{limit, limit};
    if (::setrlimit(RLIMIT_AS, &as) != 0) ::_exit(3);
    // As many threads at once as allowed, and not one more.
    std::vector<std::thread> probes;
    try {
      for (unsigned t = 0; t <= threads; ++t) probes.emplace_back([] { ::usleep(20000); });
    } catch (const std::system_error&) {
    }
    const bool as_planned = probes.size() == threads;
    for (auto& t : probes) t.join();
    if (!as_planned) ::_exit(2);  // the limit does not take threads away here as planned
    int code = 4;  // what it threw: the child must not go on with the tests
    try {
      code = body();
    } catch (...) {
    }
    ::_exit(code);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(Parallel, EveryItemRunsWhenNoThreadCanBeMade) {
  const int status = with_threads(0, [] {
    std::atomic<int> done{0};
    parallel_for(1000, [&](std::size_t) { ++done; }, 8);
    return done == 1000 ? 0 : 1;
  });
  ASSERT_NE(status, 2) << "the address-space limit did not set the threads to be had: nothing tested";
  EXPECT_EQ(status, 0) << "exit status (128 + signal when it ended on one)";
}

// The pack's next batch is made ahead on a thread of its own: with none to
// be had, each is made in its turn, and the stream is whole.
TEST(Parallel, APackIsWholeWhenNoThreadCanBeMade) {
  const int status = with_threads(0, [] {
    std::vector<PackObject> objects;
    for (int i = 0; i < 1500; ++i)
      objects.push_back({PackObject::Type::Blob, {}, "\x1f\x8b" + std::to_string(i)});
    PackStream pack(std::move(objects), "sha1", 1 << 20);
    std::string chunk;
    int pieces = 0;
    while (pack.next(chunk)) ++pieces;
    return pieces == 1 + 1500 + 1 && pack.ids().size() == 1500 ? 0 : 1;
  });
  ASSERT_NE(status, 2) << "the address-space limit did not set the threads to be had: nothing tested";
  EXPECT_EQ(status, 0) << "exit status (128 + signal when it ended on one)";
}

// Delayed smudges restore conversations on a pool of workers: with one
// thread to be had of the eight asked for, the one does every file; with
// none, the filter says so, where it had said "Resource temporarily
// unavailable" (red team: `git checkout` under `ulimit -u 4` wrote none).
TEST(Parallel, DelayedSmudgesWorkOnTheThreadsThereAre) {
  const auto restore = [](int files) {
    DelayedSmudges q(1 << 20, 8);
    for (int i = 0; i < files; ++i)
      q.add("p" + std::to_string(i), [i](auto&) { return DelayedSmudges::Result{true, std::to_string(i), {}, {}}; });
    int taken = 0;
    for (auto paths = q.available(); !paths.empty(); paths = q.available())
      for (const auto& p : paths)
        if (const auto r = q.take(p); r && r->content == p.substr(1)) ++taken;
    return taken;
  };
  int status = with_threads(1, [&] { return restore(50) == 50 ? 0 : 1; });
  ASSERT_NE(status, 2) << "the address-space limit did not set the threads to be had: nothing tested";
  EXPECT_EQ(status, 0) << "exit status (128 + signal when it ended on one)";
  status = with_threads(0, [&] {
    try {
      restore(1);
    } catch (const Error& e) {
      return std::string(e.what()).find("cannot start a thread to restore conversations") == 0 ? 0 : 5;
    }
    return 1;
  });
  ASSERT_NE(status, 2) << "the address-space limit did not set the threads to be had: nothing tested";
  EXPECT_EQ(status, 0) << "exit status: 1 no error, 4 another exception, 5 another message";
}

// Pools inside pools share the process's worker slots, which follow the
// descriptor limit (core/base/descriptors): under a soft limit of 64, sixteen
// items each running sixteen more on up to sixteen threads have at most
// worker_slots() threads beside the caller at once, not 256 (issue 44:
// each worker holds descriptors of its own). Every item still runs.
TEST(Parallel, PoolsInsidePoolsStayWithinTheDescriptorLimit) {
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  rlimit low = before;
  low.rlim_cur = 64;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  const std::size_t slots = worker_slots();
  std::atomic<int> running{0}, peak{0}, done{0};
  parallel_for(16, [&](std::size_t) {
    parallel_for(16, [&](std::size_t) {
      const int now = ++running;
      for (int seen = peak; now > seen && !peak.compare_exchange_weak(seen, now);) {
      }
      ::usleep(2000);
      --running;
      ++done;
    }, 16);
  }, 16);
  ::setrlimit(RLIMIT_NOFILE, &before);
  EXPECT_EQ(done, 256);
  EXPECT_LE(static_cast<std::size_t>(peak.load()), slots + 1);
  EXPECT_GE(peak.load(), 2) << "no thread beside the caller: the bound was not what was tested";
}

}  // namespace
}  // namespace jpblob
