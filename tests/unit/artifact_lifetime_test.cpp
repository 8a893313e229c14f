// TTL parsing, the outputs.json index and expiry (core/artifacts/
// artifact_lifetime, core/artifacts/output_index).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/time.h>

#include <atomic>
#include <thread>
#include <vector>

#include "core/artifacts/artifact_lifetime.hpp"
#include "core/artifacts/artifacts.hpp"
#include "core/artifacts/kept_by_git.hpp"
#include "core/artifacts/output_index.hpp"
#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::error_of;

constexpr std::int64_t kNow = 1'800'000'000;

// A file at `path` whose modification time is `mtime`.
void write_aged(const fs::path& path, const std::string& bytes, std::int64_t mtime) {
  fs::create_directories(path.parent_path());
  write_file_atomic(path, bytes);
  const struct timeval times[2] = {{static_cast<time_t>(mtime), 0}, {static_cast<time_t>(mtime), 0}};
  ASSERT_EQ(::utimes(path.c_str(), times), 0);
}

// ------------------------------------------------------------------ TTL

TEST(ArtifactTtl, AcceptsSecondsUnitsAndNever) {
  EXPECT_EQ(parse_artifact_ttl("3600"), 3600);
  EXPECT_EQ(parse_artifact_ttl("45s"), 45);
  EXPECT_EQ(parse_artifact_ttl("30m"), 1800);
  EXPECT_EQ(parse_artifact_ttl("2h"), 7200);
  EXPECT_EQ(parse_artifact_ttl("1d"), 86400);
  EXPECT_EQ(parse_artifact_ttl("1w"), 604800);
  EXPECT_EQ(parse_artifact_ttl("never"), std::nullopt);
  EXPECT_EQ(describe_ttl(3600), "1h");
  EXPECT_EQ(describe_ttl(1800), "30m");
  EXPECT_EQ(describe_ttl(90), "90s");
  EXPECT_EQ(describe_ttl(std::nullopt), "never");
}

// The TTL is read in git's grammar for an expiry date (core/git/expiry_date),
// as the length of time from now to the date git names.
TEST(ArtifactTtl, AcceptsWhatGitReadsAsALengthOfTime) {
  EXPECT_EQ(parse_artifact_ttl("2.hours.ago"), 7200);
  EXPECT_EQ(parse_artifact_ttl("2 days"), 2 * 86400);
  EXPECT_EQ(parse_artifact_ttl("1hour"), 3600);
  EXPECT_EQ(parse_artifact_ttl("Never"), std::nullopt);
}

TEST(ArtifactTtl, RefusesAnythingElseNamingTheKey) {
  for (const char* bad : {"", "h", "1x", "-5", "1.5h", "2 h", "0", "0m", "now", "soon", "9999999999999"}) {
    const std::string e = error_of([&] { parse_artifact_ttl(bad); });
    EXPECT_NE(e.find("jpblob.artifactTtl"), std::string::npos) << bad << ": " << e;
  }
}

// ---------------------------------------------------------------- index

TEST(OutputIndex, SummaryIsTheFirst200CharactersWithNewlinesAsSpaces) {
  EXPECT_EQ(summarize_output("a\nb\r\nc"), "a b  c");
  EXPECT_EQ(summarize_output(std::string(500, 'x')), std::string(200, 'x'));
  // 199 ASCII then a 3-byte character: all 200 characters, never half of one.
  const std::string euro = "\xE2\x82\xAC";
  EXPECT_EQ(summarize_output(std::string(199, 'a') + euro + euro), std::string(199, 'a') + euro);
  // Characters, not bytes: 250 euros give 200 of them.
  std::string many;
  for (int i = 0; i < 250; ++i) many += euro;
  EXPECT_EQ(summarize_output(many).size(), 200 * 3);
  // The kept start of an output may end inside a character: it is dropped.
  EXPECT_EQ(summarize_output("ab\xE2\x82"), "ab");
}

TEST(OutputIndex, RoundTripsAndRefusesDamage) {
  OutputIndex index;
  index.next = 8;
  index.outputs[3] = {"bash", 1048576, kNow, "line 1 line 2"};
  index.outputs[7] = {"python", 60000, kNow + 5, "\"quoted\" é"};
  const OutputIndex back = parse_index(serialize_index(index), "x");
  EXPECT_EQ(back.next, 8u);
  ASSERT_EQ(back.outputs.size(), 2u);
  EXPECT_EQ(back.outputs.at(3).tool, "bash");
  EXPECT_EQ(back.outputs.at(3).size, 1048576u);
  EXPECT_EQ(back.outputs.at(7).created, kNow + 5);
  EXPECT_EQ(back.outputs.at(7).summary, "\"quoted\" é");
  EXPECT_NE(serialize_index(index).find("\"created\": \"2027-01-15T08:00:00Z\""), std::string::npos)
      << serialize_index(index);
  for (const char* bad : {"", "{", "[]", "{\"next\":1}", "{\"next\":1,\"outputs\":{\"../x\":{}}}"})
    EXPECT_THROW(parse_index(bad, "outputs.json"), Error) << bad;
}

TEST(OutputIndex, RecordMergesAndWritesAtomically) {
  TempDir t;
  const fs::path dir = t / "sess";
  fs::create_directories(dir);
  record_output(dir, 0, {"bash", 10, kNow, "a"});
  record_output(dir, 5, {"python", 20, kNow, "b"});
  record_output(dir, 0, {"bash", 11, kNow, "a2"});
  const OutputIndex index = parse_index(read_file(dir / "outputs.json"), "x");
  ASSERT_EQ(index.outputs.size(), 2u);
  EXPECT_EQ(index.outputs.at(0).size, 11u);
  EXPECT_EQ(index.next, 6u);
  // No temporary file is left behind.
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_FALSE(e.path().filename().string().starts_with(".jpblob-tmp-")) << e.path();
}

TEST(OutputIndex, AFailedWriteLeavesTheOldIndexWhole) {
  TempDir t;
  const fs::path dir = t / "sess";
  fs::create_directories(dir);
  record_output(dir, 0, {"bash", 10, kNow, "a"});
  const std::string before = read_file(dir / "outputs.json");
  {
    Syscalls s = syscalls();
    s.write = [](int, const void*, size_t) -> ssize_t {
      errno = ENOSPC;
      return -1;
    };
    ScopedSyscalls fault(s);
    EXPECT_THROW(record_output(dir, 1, {"bash", 10, kNow, "b"}), Error);
  }
  EXPECT_EQ(read_file(dir / "outputs.json"), before);
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_FALSE(e.path().filename().string().starts_with(".jpblob-tmp-")) << e.path();
}

TEST(OutputIndex, ConcurrentRecordsLoseNothing) {
  TempDir t;
  const fs::path dir = t / "sess";
  fs::create_directories(dir);
  std::vector<std::thread> threads;
  for (int i = 0; i < 20; ++i)
    threads.emplace_back([&, i] { record_output(dir, i, {"bash", 1, kNow, std::to_string(i)}); });
  for (auto& th : threads) th.join();
  EXPECT_EQ(parse_index(read_file(dir / "outputs.json"), "x").outputs.size(), 20u);
}

TEST(OutputIndex, ALockItsHolderRemovesIsNeverHeldTwice) {
  TempDir t;
  const fs::path dir = t / "sess";
  fs::create_directories(dir);
  const Fd fd = open_artifacts_folder(dir, false);
  std::atomic<int> inside{0};
  std::atomic<bool> overlap{false};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 300; ++k) {
        const OutputIndexLock lock(fd.get(), dir, OutputLockPlace{});
        if (++inside > 1) overlap = true;
        std::this_thread::yield();
        // Removing the file ends the holder's turn (the next opener makes a
        // new one), as it does in the destructor of a lock in the git
        // folder: its work is done before.
        --inside;
        if ((k + i) % 2 == 0) lock.remove_file();
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_FALSE(overlap);
}

TEST(OutputIndex, TheAllocatorNeverReusesANumberTheIndexRemembers) {
  TempDir t;
  const fs::path dir = t / "sess";
  fs::create_directories(dir);
  OutputIndex index;
  index.next = 9;
  write_file_atomic(dir / "outputs.json", serialize_index(index));
  EXPECT_EQ(ArtifactAllocator(dir).allocate("bash").id, "9");
}

// --------------------------------------------------------------- expiry

TEST(ArtifactExpiry, AgeAgainstTheTtl) {
  TempDir t;
  const fs::path dir = t / "sess";
  write_aged(dir / "0.bash.log", "old", kNow - 7200);
  write_aged(dir / "1.bash.log", "new", kNow - 60);
  EXPECT_EQ(artifact_state(dir, "0", 3600, kNow), ArtifactState::Expired);
  EXPECT_EQ(artifact_state(dir, "1", 3600, kNow), ArtifactState::Live);
  EXPECT_EQ(artifact_state(dir, "0", std::nullopt, kNow), ArtifactState::Live);
  EXPECT_EQ(artifact_state(dir, "0", 7300, kNow), ArtifactState::Live);
  EXPECT_EQ(artifact_state(dir, "2", 3600, kNow), ArtifactState::Unknown);
}

TEST(ArtifactExpiry, GoneButKnownIsExpiredNeverAllocatedIsUnknown) {
  TempDir t;
  const fs::path dir = t / "sess";
  write_aged(dir / "4.bash.log", "x", kNow);
  // Below the highest file, with no index: expired.
  EXPECT_EQ(artifact_state(dir, "2", 3600, kNow), ArtifactState::Expired);
  EXPECT_EQ(artifact_state(dir, "5", 3600, kNow), ArtifactState::Unknown);
  // Known to the index ("next" past it): expired.
  OutputIndex index;
  index.next = 12;
  write_file_atomic(dir / "outputs.json", serialize_index(index));
  EXPECT_EQ(artifact_state(dir, "11", 3600, kNow), ArtifactState::Expired);
  EXPECT_EQ(artifact_state(dir, "12", 3600, kNow), ArtifactState::Unknown);
}

TEST(ArtifactExpiry, CleanupExpiredRemovesOldFilesAndTheirEntries) {
  TempDir t;
  const fs::path dir = t / "sess";
  write_aged(dir / "0.bash.log", "old", kNow - 7200);
  write_aged(dir / "1.bash.log", "new", kNow - 60);
  write_aged(dir / "0-Agent.md", "agent", kNow - 7200);
  record_output(dir, 0, {"bash", 3, kNow - 7200, "old"});
  record_output(dir, 1, {"bash", 3, kNow - 60, "new"});
  CleanupReport dry;
  cleanup_expired(dir, KeptByGit(), 3600, kNow, DryRun::Yes, dry);
  ASSERT_EQ(dry.removed.size(), 1u);
  EXPECT_TRUE(fs::exists(dir / "0.bash.log"));
  CleanupReport r;
  cleanup_expired(dir, KeptByGit(), 3600, kNow, DryRun::No, r);
  EXPECT_EQ(r.removed, std::vector<fs::path>{dir / "0.bash.log"});
  EXPECT_EQ(r.removed_bytes, 3u);
  EXPECT_FALSE(fs::exists(dir / "0.bash.log"));
  EXPECT_TRUE(fs::exists(dir / "1.bash.log"));
  EXPECT_TRUE(fs::exists(dir / "0-Agent.md"));
  const OutputIndex index = parse_index(read_file(dir / "outputs.json"), "x");
  EXPECT_EQ(index.outputs.size(), 1u);
  EXPECT_TRUE(index.outputs.contains(1));
  EXPECT_EQ(index.next, 2u);
  EXPECT_EQ(artifact_state(dir, "0", 3600, kNow), ArtifactState::Expired);
}

TEST(ArtifactExpiry, ADamagedIndexStopsEveryDeletionInItsFolder) {
  TempDir t;
  const fs::path dir = t / "sess";
  write_aged(dir / "0.bash.log", "old", kNow - 7200);
  write_aged(dir / "outputs.json", "{broken", kNow);
  CleanupReport r;
  cleanup_expired(dir, KeptByGit(), 3600, kNow, DryRun::No, r);
  EXPECT_TRUE(r.removed.empty());
  EXPECT_EQ(r.skipped.size(), 1u);
  EXPECT_TRUE(fs::exists(dir / "0.bash.log"));
}

TEST(ArtifactExpiry, CleanupSessionAndStats) {
  TempDir t;
  const fs::path dir = t / "sess";
  write_aged(dir / "0.bash.log", "12345", kNow);
  write_aged(dir / "1.python.log", "123", kNow);
  write_aged(dir / "2.bash.log", "1", kNow);
  ArtifactStats s;
  add_folder_stats(dir, s);
  EXPECT_EQ(s.artifact_count, 3u);
  EXPECT_EQ(s.total_bytes, 9u);
  EXPECT_EQ(s.tools["bash"].count, 2u);
  EXPECT_EQ(s.tools["bash"].bytes, 6u);
  EXPECT_EQ(s.tools["python"].bytes, 3u);
  record_output(dir, 0, {"bash", 5, kNow, ""});
  CleanupReport r;
  cleanup_session(dir, KeptByGit(), DryRun::No, r);
  EXPECT_EQ(r.removed.size(), 4u);  // three artifacts and the index
  EXPECT_FALSE(fs::exists(dir));
}

}  // namespace
}  // namespace jpblob
