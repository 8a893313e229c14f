// The queue behind delayed smudges (filter/delayed), without git.
#include "filter/delayed.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>

namespace jpblob {
namespace {

DelayedSmudges::Job giving(std::string content, std::atomic<int>* started = nullptr) {
  return [content = std::move(content), started](auto&) {
    if (started) ++*started;
    return DelayedSmudges::Result{true, content, {}, {}};
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
  q.add("bad", [](auto&) { return DelayedSmudges::Result{false, {}, "bad: no such blob", {}}; });
  ASSERT_EQ(q.available(), std::vector<std::string>{"bad"});
  auto r = q.take("bad");
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ok);
  EXPECT_EQ(r->error, "bad: no such blob");
  EXPECT_TRUE(q.available().empty());
}

TEST(DelayedSmudges, AJobThatThrowsFailsItsFileOnly) {
  DelayedSmudges q;
  q.add("throws", [](auto&) -> DelayedSmudges::Result { throw std::runtime_error("bug"); });
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
  q.add("first", [&](auto&) {
    while (!second_done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return DelayedSmudges::Result{true, "1", {}, {}};
  });
  q.add("second", [&](auto&) {
    second_done = true;
    return DelayedSmudges::Result{true, "2", {}, {}};
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
  q.add("a", [&](auto&) {
    while (!go) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return DelayedSmudges::Result{true, "a", {}, {}};
  });
  q.add("b", [](auto&) { return DelayedSmudges::Result{false, {}, "b: no such blob", {}}; });
  q.add("c", giving("c"));
  q.add("d", [](auto&) { return DelayedSmudges::Result{false, {}, "d: no such blob", {}}; });
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
  q.add("bad", [](auto&) { return DelayedSmudges::Result{false, {}, "bad: no such blob", {}}; });
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

// What git does: list, fetch each listed file, until nothing is left.
std::vector<std::string> drain(DelayedSmudges& q) {
  std::vector<std::string> all;
  for (auto paths = q.available(); !paths.empty(); paths = q.available())
    for (const auto& p : paths) {
      all.push_back(p);
      EXPECT_TRUE(q.take(p)) << p;
    }
  return all;
}

// A job that declares `declared` bytes, then counts how many such jobs
// hold their room at once while it works.
DelayedSmudges::Job holding(std::size_t declared, std::size_t result, std::atomic<int>& inside,
                            std::atomic<int>& most) {
  return [=, &inside, &most](const DelayedSmudges::Reserve& reserve) {
    if (!reserve(declared)) {  // too large for the pool: git's thread restores it
      DelayedSmudges::Result later{true, {}, {}, {}};
      later.later = [=](const std::function<void(std::string_view)>& sink) { sink(std::string(result, 'y')); };
      return later;
    }
    const int now = ++inside;
    for (int seen = most; now > seen && !most.compare_exchange_weak(seen, now);) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    --inside;
    return DelayedSmudges::Result{true, std::string(result, 'x'), {}, {}};
  };
}

// Files being restored and results waiting share one budget: on 8
// threads, four jobs of 400 bytes under a budget of 1,000 never hold more
// than two at once, and never more than the budget.
TEST(DelayedSmudges, RestoringFilesAndWaitingResultsShareOneBudget) {
  DelayedSmudges q(/*budget=*/1000, /*threads=*/8);
  std::atomic<int> inside{0}, most{0};
  for (int i = 0; i < 4; ++i) q.add("p" + std::to_string(i), holding(400, 100, inside, most));
  EXPECT_EQ(drain(q).size(), 4u);
  EXPECT_LE(most.load(), 2);
  EXPECT_GE(most.load(), 1);
  EXPECT_LE(q.peak_held(), 1000u);
}

// A file larger than the budget is not restored in the pool: it comes
// back with what restores it in git's thread, listed after every other
// file (it may still fail, and git stops at a failure), and the files
// around it are restored within the budget.
TEST(DelayedSmudges, AFileLargerThanTheBudgetComesBackToBeStreamed) {
  DelayedSmudges q(/*budget=*/100, /*threads=*/4);
  std::atomic<int> inside{0}, most{0};
  q.add("small-1", holding(60, 10, inside, most));
  q.add("huge", holding(5000, 10, inside, most));
  q.add("small-2", holding(60, 10, inside, most));
  std::vector<std::string> all;
  for (auto paths = q.available(); !paths.empty(); paths = q.available())
    for (const auto& p : paths) {
      all.push_back(p);
      auto r = q.take(p);
      ASSERT_TRUE(r && r->ok) << p;
      std::string got = r->content;
      if (r->later) r->later([&](std::string_view piece) { got.append(piece); });
      EXPECT_EQ(got, std::string(10, p == "huge" ? 'y' : 'x')) << p;
      EXPECT_EQ(static_cast<bool>(r->later), p == "huge") << p;
    }
  EXPECT_EQ(all, (std::vector<std::string>{"small-1", "small-2", "huge"}));
  EXPECT_EQ(most.load(), 1);
  EXPECT_LE(q.peak_held(), 100u);
}

// A result git fetches holds its room until git has read it: a large
// job waits for handed_over(), not only for take().
TEST(DelayedSmudges, ATakenResultHoldsItsRoomUntilHandedOver) {
  DelayedSmudges q(/*budget=*/100, /*threads=*/2);
  std::atomic<bool> second_in{false};
  q.add("first", giving(std::string(90, 'x')));
  q.add("second", [&](const DelayedSmudges::Reserve& reserve) {
    reserve(50);
    second_in = true;
    return DelayedSmudges::Result{true, "2", {}, {}};
  });
  ASSERT_EQ(q.available(), (std::vector<std::string>{"first"}));
  ASSERT_TRUE(q.take("first"));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(second_in) << "let in while git still reads the first file";
  q.handed_over();
  EXPECT_EQ(q.available(), (std::vector<std::string>{"second"}));
  EXPECT_TRUE(second_in);
  EXPECT_LE(q.peak_held(), 100u);
}

// Jobs are let in in git's order: a later job that declares first must not
// take the room an earlier one needs (git waits for the earlier file).
TEST(DelayedSmudges, JobsAreLetInInGitsOrder) {
  DelayedSmudges q(/*budget=*/100, /*threads=*/2);
  std::mutex m;
  std::vector<std::string> let_in;
  const auto job = [&](std::string name, int delay_ms) {
    return [&, name, delay_ms](const DelayedSmudges::Reserve& reserve) {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      reserve(80);
      {
        std::lock_guard lock(m);
        let_in.push_back(name);
      }
      return DelayedSmudges::Result{true, name, {}, {}};
    };
  };
  q.add("first", job("first", 100));
  q.add("second", job("second", 0));
  EXPECT_EQ(drain(q), (std::vector<std::string>{"first", "second"}));
  EXPECT_EQ(let_in, (std::vector<std::string>{"first", "second"}));
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
