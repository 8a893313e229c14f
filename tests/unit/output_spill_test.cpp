#include "core/artifacts/output_spill.hpp"

#include "core/artifacts/artifacts.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <set>
#include <thread>

#include "core/base/error.hpp"
#include "core/artifacts/internal_url.hpp"
#include "core/artifacts/output_spill.hpp"
#include "core/git/subprocess.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::error_of;


// ------------------------------------------------------------ output spill

TEST(OutputSpill, ShortOutputStaysInMemory) {
  TempDir t;
  ArtifactAllocator a(t / "s");
  bool opened = false;
  OutputSpill sink([&] {
    opened = true;
    return a.allocate("bash");
  });
  sink.write("hello ");
  sink.write("world\n");
  const SpillSummary s = sink.finish();
  EXPECT_EQ(s.tail, "hello world\n");
  EXPECT_FALSE(s.truncated);
  EXPECT_FALSE(s.artifact_id);
  EXPECT_FALSE(opened);
  EXPECT_EQ(describe_spill(s), "");
}

TEST(OutputSpill, LongOutputGoesWholeToTheNextArtifact) {
  TempDir t;
  test::write_text(t / "s/4.bash.log", "earlier");
  ArtifactAllocator a(t / "s");
  OutputSpill sink([&] { return a.allocate("bash"); });
  std::string all;
  for (int i = 0; i < 30000; ++i) {
    const std::string line = "line " + std::to_string(i) + " ünïcödé\n";
    all += line;
    sink.write(line);
  }
  const SpillSummary s = sink.finish();
  EXPECT_TRUE(s.truncated);
  ASSERT_TRUE(s.artifact_id);
  EXPECT_EQ(*s.artifact_id, "5");
  EXPECT_EQ(s.total_bytes, all.size());
  EXPECT_EQ(test::read_text(t / "s/5.bash.log"), all) << "every byte, in order";
  EXPECT_LE(s.tail.size(), kSpillThreshold);
  EXPECT_GE(s.tail.size(), kSpillThreshold - 3);
  EXPECT_TRUE(all.ends_with(s.tail));
  EXPECT_NE(static_cast<unsigned char>(s.tail[0]) & 0xC0, 0x80) << "starts on a character";
  EXPECT_EQ(describe_spill(s), "[Output truncated: showing the last " + std::to_string(s.tail.size()) + " of " +
                                   std::to_string(all.size()) + " bytes. Full output: artifact://5]");
  EXPECT_EQ(describe_spill(s, /*streamed=*/true),
            "[Output of " + std::to_string(all.size()) + " bytes. Full output: artifact://5]");
}

TEST(OutputSpill, WhenNoFileCanBeCreatedItKeepsTheTailAndSaysSo) {
  TempDir t;
  test::write_text(t / "s", "a file where the folder should be");
  ArtifactAllocator a(t / "s");
  OutputSpill sink([&] { return a.allocate("bash"); }, 1000);
  sink.write(std::string(5000, 'x'));
  const SpillSummary s = sink.finish();
  EXPECT_TRUE(s.truncated);
  EXPECT_FALSE(s.artifact_id);
  EXPECT_EQ(s.tail, std::string(1000, 'x'));
  EXPECT_NE(s.problem.find("could not save the whole output"), std::string::npos) << s.problem;
  EXPECT_NE(describe_spill(s).find("could not save the whole output"), std::string::npos);
}

TEST(OutputSpill, AFullDiskMidwayIsReportedAsIncomplete) {
  TempDir t;
  ArtifactAllocator a(t / "s");
  OutputSpill sink([&] { return a.allocate("bash"); }, 1000);
  sink.write(std::string(2000, 'a'));  // spilled: the file holds 2000 bytes
  {
    Syscalls s = syscalls();
    s.write = [](int, const void*, size_t) -> ssize_t {
      errno = ENOSPC;
      return -1;
    };
    ScopedSyscalls fault(s);
    sink.write(std::string(2000, 'b'));
  }
  sink.write(std::string(10, 'c'));  // later output still reaches the tail
  const SpillSummary s = sink.finish();
  ASSERT_TRUE(s.artifact_id);
  EXPECT_NE(s.problem.find("artifact://0 is incomplete"), std::string::npos) << s.problem;
  EXPECT_NE(s.problem.find("No space left on device"), std::string::npos) << s.problem;
  EXPECT_EQ(test::read_text(t / "s/0.bash.log"), std::string(2000, 'a')) << "what was written stays";
  EXPECT_TRUE(s.tail.ends_with("cccccccccc"));
  EXPECT_NE(describe_spill(s).find("incomplete"), std::string::npos);
}

// ---------------------------------------------------------- stream_command

TEST(StreamCommand, MergesOutputAndGivesTheChildDefaultSigpipe) {
  // This program ignores SIGPIPE; a child must not inherit that, or a
  // pipeline like `producer | head` in it never stops its producer.
  struct IgnorePipe {
    void (*saved)(int) = std::signal(SIGPIPE, SIG_IGN);
    ~IgnorePipe() { std::signal(SIGPIPE, saved); }
  } ignore;
  std::string out;
  const int status = stream_command(
      {"sh", "-c", "echo out; echo err >&2; grep SigIgn /proc/self/status; exit 3"}, fs::current_path(),
      [&](std::string_view s) { out.append(s); });
  EXPECT_EQ(status, 3);
  EXPECT_NE(out.find("out\n"), std::string::npos);
  EXPECT_NE(out.find("err\n"), std::string::npos);
  const auto at = out.find("SigIgn:");
  ASSERT_NE(at, std::string::npos) << out;
  const unsigned long long ignored = std::stoull(out.substr(at + 7), nullptr, 16);
  EXPECT_EQ(ignored & (1ull << (SIGPIPE - 1)), 0u) << "SIGPIPE still ignored in the child: " << out;
  EXPECT_THROW(stream_command({"/no/such/program"}, fs::current_path(), [](std::string_view) {}), Error);
}

}  // namespace
}  // namespace jpblob
