// The terminal progress line, drawn into a temporary file standing in for
// a terminal, on a clock the tests move.
#include "cli/progress.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cli/quiet.hpp"
#include "core/base/parallel.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

using namespace std::chrono_literals;
using test::error_of;
using test::ScopedEnv;

class Screen {
 public:
  Screen() : file_(std::tmpfile()) {}
  ~Screen() { std::fclose(file_); }
  std::FILE* file() { return file_; }
  std::string text() {
    std::fflush(file_);
    std::rewind(file_);
    std::string out;
    for (int c; (c = std::fgetc(file_)) != EOF;) out.push_back(static_cast<char>(c));
    return out;
  }

 private:
  std::FILE* file_;
};

// A clock that moves only when told.
class FakeClock {
 public:
  TerminalProgress::Clock clock() {
    return [this] { return now_; };
  }
  void advance(std::chrono::milliseconds by) { now_ += by; }

 private:
  std::chrono::steady_clock::time_point now_{};
};

// Every count drawn, in order ("(141/1000)" → 141).
std::vector<std::size_t> counts_drawn(const std::string& out) {
  static const std::regex count(R"(\((\d+)/\d+\))");
  std::vector<std::size_t> counts;
  for (auto it = std::sregex_iterator(out.begin(), out.end(), count); it != std::sregex_iterator(); ++it)
    counts.push_back(std::stoul((*it)[1]));
  return counts;
}

// The delay is git's unless a test says otherwise: 0 draws at once.
class TerminalProgressTest : public ::testing::Test {
 protected:
  ScopedEnv no_delay_{"GIT_PROGRESS_DELAY", "0"};
  Screen screen_;
  FakeClock time_;
};

TEST_F(TerminalProgressTest, AFinishedPhaseEndsAtAHundredPercent) {
  {
    TerminalProgress progress(screen_.file(), true);
    const Progress report = progress.callback();
    for (std::size_t i = 0; i <= 39; ++i) report("Checking", i, 40);  // the last update is 39/40
  }
  const std::string out = screen_.text();
  EXPECT_NE(out.find("\rChecking:  97% (39/40)"), std::string::npos) << out;
  EXPECT_TRUE(out.ends_with("\rChecking: 100% (40/40), done.\n")) << out;
}

TEST_F(TerminalProgressTest, ThePhaseBeforeTheNextEndsAtAHundredPercentToo) {
  {
    TerminalProgress progress(screen_.file(), true);
    const Progress report = progress.callback();
    report("Reading", 1, 3);
    report("Writing", 0, 2);
    report("Writing", 2, 2);
  }
  const std::string out = screen_.text();
  EXPECT_NE(out.find("\rReading:  33% (1/3)\rReading: 100% (3/3), done.\n\rWriting:   0% (0/2)"), std::string::npos)
      << out;
  // Already at 100%: not drawn twice.
  EXPECT_TRUE(out.ends_with("\rWriting: 100% (2/2), done.\n")) << out;
  EXPECT_EQ(out.find("Writing: 100%"), out.rfind("Writing: 100%")) << out;
}

TEST_F(TerminalProgressTest, WorkThatFailedIsNotCalledDone) {
  try {
    TerminalProgress progress(screen_.file(), true);
    progress.callback()("Checking", 1, 4);
    throw std::runtime_error("failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(screen_.text(), "\rChecking:  25% (1/4)\n");
}

TEST_F(TerminalProgressTest, DrawsNothingOffATerminalOrWhenQuiet) {
  {
    TerminalProgress progress(screen_.file(), false);
    EXPECT_FALSE(progress.callback());
  }
  EXPECT_EQ(screen_.text(), "");
  // -q: no line even on a terminal, and no work at all.
  set_quiet(true);
  {
    TerminalProgress progress(screen_.file(), true);
    EXPECT_FALSE(progress.callback());
  }
  set_quiet(false);
  EXPECT_EQ(screen_.text(), "");
}

// Workers finish items out of order: one reports 141 after another
// reported 150. The line never counts backwards.
TEST_F(TerminalProgressTest, TheCountDrawnNeverGoesDown) {
  {
    TerminalProgress progress(screen_.file(), true);
    const Progress report = progress.callback();
    report("Verifying blobs", 150, 1000);
    report("Verifying blobs", 141, 1000);
    report("Verifying blobs", 160, 1000);
  }
  const std::string out = screen_.text();
  EXPECT_EQ(out.find("141"), std::string::npos) << out;
  EXPECT_NE(out.find("\rVerifying blobs:  16% (160/1000)"), std::string::npos) << out;
}

TEST_F(TerminalProgressTest, ThreadsReportingOutOfOrderNeverCountBackwards) {
  constexpr std::size_t kThreads = 4, kEach = 250, kTotal = kThreads * kEach;
  {
    TerminalProgress progress(screen_.file(), true);
    const Progress report = progress.callback();
    std::vector<std::thread> threads;
    // Each thread reports its own quarter from the top down, the worst
    // order a slow reporter can give.
    for (std::size_t t = 0; t < kThreads; ++t)
      threads.emplace_back([&, t] {
        for (std::size_t i = kEach; i > 0; --i) report("Reading conversations", t * kEach + i, kTotal);
      });
    for (auto& t : threads) t.join();
  }
  const std::vector<std::size_t> counts = counts_drawn(screen_.text());
  ASSERT_FALSE(counts.empty());
  for (std::size_t i = 1; i < counts.size(); ++i)
    EXPECT_LE(counts[i - 1], counts[i]) << "drawn " << counts[i - 1] << " then " << counts[i];
  EXPECT_EQ(counts.back(), kTotal);
}

// The callers' way: a shared atomic count of finished items, reported by
// whichever worker finished one. The line ends at the total, exactly once.
TEST_F(TerminalProgressTest, ASharedCountReachesTheTotalExactly) {
  constexpr std::size_t kTotal = 1000;
  {
    TerminalProgress progress(screen_.file(), true);
    const Progress report = progress.callback();
    std::atomic<std::size_t> done{0};
    parallel_for(kTotal, [&](std::size_t) { report("Verifying blobs", ++done, kTotal); }, 4);
  }
  const std::string out = screen_.text();
  EXPECT_TRUE(out.ends_with("\rVerifying blobs: 100% (1000/1000), done.\n")) << out;
  EXPECT_EQ(out.find("(1000/1000)"), out.rfind("(1000/1000)")) << out;
  for (std::size_t count : counts_drawn(out)) EXPECT_LE(count, kTotal);
}

TEST_F(TerminalProgressTest, NothingBeforeGitsDelay) {
  const ScopedEnv unset("GIT_PROGRESS_DELAY", nullptr);  // git's default: one second
  {
    TerminalProgress progress(screen_.file(), true, time_.clock());
    const Progress report = progress.callback();
    report("Reading conversations", 1, 100);
    time_.advance(999ms);
    report("Reading conversations", 40, 100);
    EXPECT_EQ(screen_.text(), "");
    time_.advance(1ms);
    report("Reading conversations", 41, 100);
    EXPECT_EQ(screen_.text(), "\rReading conversations:  41% (41/100)");
  }
  EXPECT_TRUE(screen_.text().ends_with("\rReading conversations: 100% (100/100), done.\n")) << screen_.text();
}

TEST_F(TerminalProgressTest, APhaseThatEndsWithinTheDelayPrintsNothing) {
  const ScopedEnv unset("GIT_PROGRESS_DELAY", nullptr);
  {
    TerminalProgress progress(screen_.file(), true, time_.clock());
    const Progress report = progress.callback();
    for (std::size_t i = 1; i <= 10; ++i) {
      report("Verifying blobs", i, 10);
      time_.advance(50ms);
    }
    time_.advance(5s);  // other work: the phase ended with its last item
    report("Reading conversations", 1, 3);
    time_.advance(2s);
    report("Reading conversations", 2, 3);
  }
  EXPECT_EQ(screen_.text(), "\rReading conversations:  66% (2/3)\rReading conversations: 100% (3/3), done.\n");
  Screen quick;
  {
    TerminalProgress progress(quick.file(), true, time_.clock());
    progress.callback()("Reading conversations", 3, 3);
  }
  EXPECT_EQ(quick.text(), "") << "a phase that ends with the object, within the delay";
}

TEST_F(TerminalProgressTest, HonoursGitProgressDelay) {
  const ScopedEnv three("GIT_PROGRESS_DELAY", "3");
  TerminalProgress progress(screen_.file(), true, time_.clock());
  const Progress report = progress.callback();
  report("Checking history", 1, 10);
  time_.advance(2999ms);
  report("Checking history", 2, 10);
  EXPECT_EQ(screen_.text(), "");
  time_.advance(1ms);
  report("Checking history", 3, 10);
  EXPECT_EQ(screen_.text(), "\rChecking history:  30% (3/10)");
}

TEST_F(TerminalProgressTest, RedrawsASlowCountOnceASecond) {
  TerminalProgress progress(screen_.file(), true, time_.clock());
  const Progress report = progress.callback();
  report("Reading history", 1, 1000);
  time_.advance(500ms);
  report("Reading history", 2, 1000);  // same percentage, within the second
  time_.advance(500ms);
  report("Reading history", 3, 1000);  // a second since the last line
  EXPECT_EQ(screen_.text(), "\rReading history:   0% (1/1000)\rReading history:   0% (3/1000)");
}

TEST(GitProgressDelay, ReadAsGitReadsIt) {
  {
    const ScopedEnv unset("GIT_PROGRESS_DELAY", nullptr);
    EXPECT_EQ(git_progress_delay(), 1s);
  }
  const std::pair<const char*, std::chrono::seconds> good[] = {
      {"0", 0s}, {"2", 2s}, {"010", 8s}, {"0x10", 16s}, {"1k", 1024s}, {"1K", 1024s}, {" 5", 5s}, {"+5", 5s}};
  for (const auto& [text, seconds] : good) {
    const ScopedEnv set("GIT_PROGRESS_DELAY", text);
    EXPECT_EQ(git_progress_delay(), seconds) << text;
  }
  for (const char* bad : {"", "-1", "abc", "2s", "1.5", "1kb", "99999999999999999999999"}) {
    const ScopedEnv set("GIT_PROGRESS_DELAY", bad);
    EXPECT_EQ(error_of([] { git_progress_delay(); }), "failed to parse GIT_PROGRESS_DELAY") << bad;
  }
  // Read only where a line could be drawn: off a terminal a bad value is
  // never looked at, as git never starts its progress there.
  const ScopedEnv set("GIT_PROGRESS_DELAY", "abc");
  Screen screen;
  EXPECT_NO_THROW(TerminalProgress(screen.file(), false));
}

}  // namespace
}  // namespace jpblob
