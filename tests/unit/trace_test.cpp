#include "core/base/trace.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <optional>
#include <string>

namespace jpblob {
namespace {

using Kind = TraceTarget::Kind;

TEST(TraceValue, OffAsGitReadsIt) {
  for (const char* value : {static_cast<const char*>(nullptr), "", "0", "false", "FALSE", "False"})
    EXPECT_EQ(parse_trace_value(value).kind, Kind::Off) << (value ? value : "(unset)");
}

TEST(TraceValue, OneAndTrueAreStandardError) {
  for (const char* value : {"1", "true", "TRUE", "True"}) {
    const TraceTarget t = parse_trace_value(value);
    EXPECT_EQ(t.kind, Kind::Descriptor) << value;
    EXPECT_EQ(t.fd, 2) << value;
  }
}

TEST(TraceValue, OneDigitIsThatDescriptor) {
  for (int fd = 2; fd <= 9; ++fd) {
    const std::string value = std::to_string(fd);
    const TraceTarget t = parse_trace_value(value.c_str());
    EXPECT_EQ(t.kind, Kind::Descriptor) << value;
    EXPECT_EQ(t.fd, fd);
  }
}

TEST(TraceValue, AbsolutePathIsAFile) {
  const TraceTarget t = parse_trace_value("/tmp/trace.log");
  EXPECT_EQ(t.kind, Kind::File);
  EXPECT_EQ(t.path, "/tmp/trace.log");
}

TEST(TraceValue, AnythingElseIsUnknown) {
  // git warns and does not trace: a relative path would land in whatever
  // folder each process runs in.
  for (const char* value : {"trace.log", "./trace.log", "10", "23", "99", "yes", "on", "-1", " 1", "1 "})
    EXPECT_EQ(parse_trace_value(value).kind, Kind::Unknown) << value;
}

class TraceLine : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tz = std::getenv("TZ");
    saved_tz_ = tz ? std::optional<std::string>(tz) : std::nullopt;
    ::setenv("TZ", "UTC0", 1);
    ::tzset();
  }
  void TearDown() override {
    if (saved_tz_) ::setenv("TZ", saved_tz_->c_str(), 1);
    else ::unsetenv("TZ");
    ::tzset();
  }
  std::optional<std::string> saved_tz_;
};

TEST_F(TraceLine, GitsLayoutPaddedToColumnForty) {
  const std::timespec at{3723, 4005006};  // 01:02:03.004005 UTC
  const std::string line = format_trace_line(at, "gc.cpp", 7, "gc: keeps 3", false);
  EXPECT_EQ(line, "01:02:03.004005 gc.cpp:7" + std::string(40 - 24, ' ') + "trace: git-jpblob: gc: keeps 3\n");
  EXPECT_EQ(line.find("trace:"), 40u);
}

TEST_F(TraceLine, LongFileNameKeepsOneSpace) {
  const std::timespec at{0, 999999999};
  EXPECT_EQ(format_trace_line(at, "maintenance_commands.cpp", 123, "m", false),
            "00:00:00.999999 maintenance_commands.cpp:123 trace: git-jpblob: m\n");
}

TEST_F(TraceLine, BareIsTheMessageAlone) {
  EXPECT_EQ(format_trace_line({5, 0}, "x.cpp", 1, "built-in: git-jpblob gc", true),
            "trace: git-jpblob: built-in: git-jpblob gc\n");
}

TEST(TraceQuote, QuotesOnlyWhatTheShellNeeds) {
  EXPECT_EQ(quote_argv_pretty({}), "");
  EXPECT_EQ(quote_argv_pretty({"git", "config", "--file", "-", "a.b=c@d:e/f,g+h^i_j"}),
            " git config --file - a.b=c@d:e/f,g+h^i_j");
  EXPECT_EQ(quote_argv_pretty({"", "a b", "it's", "hi!", "$HOME", "\xc3\xa9"}),
            " '' 'a b' 'it'\\''s' 'hi'\\!'' '$HOME' '\xc3\xa9'");
}

TEST(TraceBasename, LastComponent) {
  static_assert(trace_basename("/a/b/gc.cpp") == "gc.cpp");
  static_assert(trace_basename("gc.cpp") == "gc.cpp");
  EXPECT_EQ(trace_basename(__FILE__), "trace_test.cpp");
}

}  // namespace
}  // namespace jpblob
