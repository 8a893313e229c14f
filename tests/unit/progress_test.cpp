// The terminal progress line, drawn into a temporary file standing in for
// a terminal.
#include "cli/progress.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <stdexcept>
#include <string>

namespace jpblob {
namespace {

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

TEST(TerminalProgress, AFinishedPhaseEndsAtAHundredPercent) {
  Screen screen;
  {
    TerminalProgress progress(screen.file(), true);
    const Progress report = progress.callback();
    for (std::size_t i = 0; i <= 39; ++i) report("Checking", i, 40);  // the last update is 39/40
  }
  const std::string out = screen.text();
  EXPECT_NE(out.find("\rChecking:  97% (39/40)"), std::string::npos) << out;
  EXPECT_TRUE(out.ends_with("\rChecking: 100% (40/40), done.\n")) << out;
}

TEST(TerminalProgress, ThePhaseBeforeTheNextEndsAtAHundredPercentToo) {
  Screen screen;
  {
    TerminalProgress progress(screen.file(), true);
    const Progress report = progress.callback();
    report("Reading", 1, 3);
    report("Writing", 0, 2);
    report("Writing", 2, 2);
  }
  const std::string out = screen.text();
  EXPECT_NE(out.find("\rReading:  33% (1/3)\rReading: 100% (3/3), done.\n\rWriting:   0% (0/2)"), std::string::npos)
      << out;
  // Already at 100%: not drawn twice.
  EXPECT_TRUE(out.ends_with("\rWriting: 100% (2/2), done.\n")) << out;
  EXPECT_EQ(out.find("Writing: 100%"), out.rfind("Writing: 100%")) << out;
}

TEST(TerminalProgress, WorkThatFailedIsNotCalledDone) {
  Screen screen;
  try {
    TerminalProgress progress(screen.file(), true);
    progress.callback()("Checking", 1, 4);
    throw std::runtime_error("failed");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(screen.text(), "\rChecking:  25% (1/4)\n");
}

TEST(TerminalProgress, DrawsNothingOffATerminal) {
  Screen screen;
  {
    TerminalProgress progress(screen.file(), false);
    EXPECT_FALSE(progress.callback());
  }
  EXPECT_EQ(screen.text(), "");
}

}  // namespace
}  // namespace jpblob
