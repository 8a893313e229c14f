// The queue behind delayed smudges (filter/delayed), without git.
#include "filter/delayed.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>

namespace jpblob {
namespace {

DelayedSmudges::Job giving(std::string content, std::atomic<int>* started = nullptr) {
  return [content = std::move(content), started] {
    if (started) ++*started;
    return DelayedSmudges::Result{true, content, {}};
  };
}

TEST(DelayedSmudges, EachPathIsListedOnceAndTakenOnce) {
  DelayedSmudges q;
  for (int i = 0; i < 100; ++i) q.add("p" + std::to_string(i), giving(std::to_string(i)));
  std::set<std::string> seen;
  for (auto paths = q.available(); !paths.empty(); paths = q.available())
    for (const auto& p : paths) {
      EXPECT_TRUE(seen.insert(p).second) << p;
      EXPECT_TRUE(q.listed(p));
      auto r = q.take(p);
      ASSERT_TRUE(r);
      EXPECT_EQ(r->content, p.substr(1));
      EXPECT_FALSE(q.take(p)) << "taken twice";
    }
  EXPECT_EQ(seen.size(), 100u);
  EXPECT_FALSE(q.take("never"));
}

TEST(DelayedSmudges, AFailureIsAResult) {
  DelayedSmudges q;
  q.add("bad", [] { return DelayedSmudges::Result{false, {}, "bad: no such blob"}; });
  ASSERT_EQ(q.available(), std::vector<std::string>{"bad"});
  auto r = q.take("bad");
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->error, "bad: no such blob");
  EXPECT_TRUE(q.available().empty());
}

TEST(DelayedSmudges, AJobThatThrowsFailsItsFileOnly) {
  DelayedSmudges q;
  q.add("throws", []() -> DelayedSmudges::Result { throw std::runtime_error("bug"); });
  q.add("fine", giving("ok"));
  std::size_t failed = 0, fine = 0;
  for (auto paths = q.available(); !paths.empty(); paths = q.available())
    for (const auto& p : paths) (q.take(p)->ok ? fine : failed)++;
  EXPECT_EQ(failed, 1u);
  EXPECT_EQ(fine, 1u);
}

// Results wait in memory until git fetches them: past the budget no job
// starts, so at most one result per thread is ever waiting.
TEST(DelayedSmudges, TheBudgetPausesThePool) {
  DelayedSmudges q(/*budget=*/1, /*threads=*/2);
  std::atomic<int> started{0};
  for (int i = 0; i < 10; ++i) q.add("p" + std::to_string(i), giving(std::string(100, 'x'), &started));
  // Time for an unbounded pool to finish all ten.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_LE(started.load(), 2);
  std::size_t taken = 0;
  for (auto paths = q.available(); !paths.empty(); paths = q.available()) {
    EXPECT_LE(paths.size(), 2u);
    for (const auto& p : paths) taken += q.take(p) ? 1 : 0;
  }
  EXPECT_EQ(taken, 10u);
}

// A listed path git never fetched is dropped at the next listing; a path
// queued again replaces the first job's result.
TEST(DelayedSmudges, AbandonedAndRepeatedPaths) {
  DelayedSmudges q;
  q.add("a", giving("1"));
  ASSERT_EQ(q.available(), std::vector<std::string>{"a"});
  EXPECT_TRUE(q.available().empty());
  EXPECT_FALSE(q.take("a"));
  q.add("b", giving("old"));
  q.add("b", giving("new"));
  std::vector<std::string> all;
  for (auto paths = q.available(); !paths.empty(); paths = q.available())
    for (const auto& p : paths) {
      all.push_back(p);
      EXPECT_EQ(q.take(p)->content, "new");
    }
  EXPECT_EQ(all, std::vector<std::string>{"b"});
}

// git writes what one listing names and dies at a failed file of a
// required filter. Restored files are listed in the order git queued them,
// a file only once every restored one before it is listed; failures wait
// until every other file is listed, so git writes every file it can.
TEST(DelayedSmudges, FilesAreListedInQueueOrder) {
  DelayedSmudges q(DelayedSmudges::kDefaultBudget, /*threads=*/2);
  std::atomic<bool> second_done{false};
  q.add("first", [&] {
    while (!second_done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return DelayedSmudges::Result{true, "1", {}};
  });
  q.add("second", [&] {
    second_done = true;
    return DelayedSmudges::Result{true, "2", {}};
  });
  std::vector<std::string> all;
  for (auto paths = q.available(); !paths.empty(); paths = q.available())
    for (const auto& p : paths) {
      all.push_back(p);
      EXPECT_TRUE(q.take(p));
    }
  EXPECT_EQ(all, (std::vector<std::string>{"first", "second"}));
}

TEST(DelayedSmudges, FailuresAreListedAfterEveryOtherFile) {
  DelayedSmudges q(DelayedSmudges::kDefaultBudget, /*threads=*/1);
  std::atomic<bool> go{false};
  q.add("a", [&] {
    while (!go) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return DelayedSmudges::Result{true, "a", {}};
  });
  q.add("b", [] { return DelayedSmudges::Result{false, {}, "b: no such blob"}; });
  q.add("c", giving("c"));
  q.add("d", [] { return DelayedSmudges::Result{false, {}, "d: no such blob"}; });
  q.add("e", giving("e"));
  go = true;
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // all ready
  EXPECT_EQ(q.available(), (std::vector<std::string>{"a", "c", "e"}));
  EXPECT_FALSE(q.failure("a"));
  for (const char* p : {"a", "c", "e"}) EXPECT_TRUE(q.take(p)->ok) << p;
  EXPECT_EQ(q.available(), (std::vector<std::string>{"b", "d"}));
  EXPECT_EQ(q.failure("b"), "b: no such blob");
  EXPECT_FALSE(q.take("b")->ok);
  EXPECT_TRUE(q.available().empty());
}

// A failure early in a long queue, with a budget that pauses the pool:
// every restored file still comes out, then the failure.
TEST(DelayedSmudges, AFailureFirstStallsNothing) {
  DelayedSmudges q(/*budget=*/1, /*threads=*/2);
  q.add("bad", [] { return DelayedSmudges::Result{false, {}, "bad: no such blob"}; });
  for (int i = 0; i < 50; ++i) q.add("p" + std::to_string(i), giving(std::string(100, 'x')));
  std::vector<std::string> all;
  for (auto paths = q.available(); !paths.empty(); paths = q.available())
    for (const auto& p : paths) {
      all.push_back(p);
      EXPECT_TRUE(q.take(p));
    }
  ASSERT_EQ(all.size(), 51u);
  EXPECT_EQ(all.back(), "bad");
}

TEST(DelayedSmudges, StopsWithJobsQueued) {
  std::atomic<int> started{0};
  {
    DelayedSmudges q(1, 1);
    for (int i = 0; i < 1000; ++i) q.add("p" + std::to_string(i), giving("x", &started));
  }
  EXPECT_LT(started.load(), 1000);
}

}  // namespace
}  // namespace jpblob
