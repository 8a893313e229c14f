#include "core/artifacts.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <set>
#include <thread>

#include "core/error.hpp"
#include "core/internal_url.hpp"
#include "core/output_spill.hpp"
#include "core/subprocess.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::error_of;

// ---------------------------------------------------------------- folders

TEST(Artifacts, FolderIsTheSessionFileWithoutJsonl) {
  EXPECT_EQ(artifacts_dir_for("/s/2026-11-22T10-00_abc.jsonl"), fs::path("/s/2026-11-22T10-00_abc"));
  EXPECT_EQ(artifacts_dir_for("rel/x.jsonl"), fs::path("rel/x"));
  EXPECT_THROW(artifacts_dir_for("/s/x.json"), Error);
  EXPECT_THROW(artifacts_dir_for("/s/.jsonl"), Error);
  EXPECT_THROW(artifacts_dir_for(".git/config"), Error);
}

TEST(Artifacts, IdsAndNamesAreValidated) {
  for (const char* ok : {"0", "7", "123456789012345678"}) EXPECT_TRUE(is_valid_artifact_id(ok)) << ok;
  for (const char* bad : {"", "-1", "1.5", "../../x", "1/../x", "1234567890123456789", "1 ", "x"})
    EXPECT_FALSE(is_valid_artifact_id(bad)) << bad;
  for (const char* ok : {"0-Parent", "0-Parent.1-Child", "12-a_b-c.0-x.3-y"}) EXPECT_TRUE(is_valid_agent_id(ok)) << ok;
  for (const char* bad : {"", "..", "../../etc", "0-", "-x", "0-a..1-b", "0-a.", ".0-a", "0-a/1-b", "a-b", "0-a b",
                          "0-a\n"})
    EXPECT_FALSE(is_valid_agent_id(bad)) << bad;
  for (const char* bad : {"", "a.b", "a/b", "..", std::string(65, 'a').c_str()})
    EXPECT_FALSE(is_valid_name(bad)) << bad;
}

// ------------------------------------------------------------- allocation

TEST(Artifacts, NumbersStartAtZeroAndResumeAfterTheHighest) {
  TempDir t;
  const fs::path dir = t / "sess";
  {
    ArtifactAllocator a(dir);  // the folder does not exist yet
    EXPECT_EQ(a.allocate("bash").id, "0");
    EXPECT_EQ(a.allocate("python").id, "1");
    EXPECT_TRUE(fs::is_regular_file(dir / "0.bash.log"));
    EXPECT_TRUE(fs::is_regular_file(dir / "1.python.log"));
  }
  // A resumed session: 7 exists, and files that are not artifacts are ignored.
  test::write_text(dir / "7.bash.log", "old output");
  test::write_text(dir / "99-agent.md", "x");
  test::write_text(dir / "notes.txt", "x");
  ArtifactAllocator resumed(dir);
  const AllocatedFile f = resumed.allocate("bash");
  EXPECT_EQ(f.id, "8");
  EXPECT_EQ(f.path, dir / "8.bash.log");
  EXPECT_EQ(test::read_text(dir / "7.bash.log"), "old output") << "never overwritten";
  EXPECT_THROW(resumed.allocate("../x"), Error);
  EXPECT_THROW(resumed.allocate(""), Error);
}

TEST(Artifacts, ConcurrentAllocatorsNeverShareANumber) {
  // Separate allocators share nothing but the folder, as two processes do;
  // each uses its own tool name, so only the claim check keeps numbers apart.
  TempDir t;
  const fs::path dir = t / "sess";
  constexpr int kThreads = 8, kEach = 40;
  std::vector<std::vector<std::string>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      ArtifactAllocator a(dir);
      for (int k = 0; k < kEach; ++k) ids[i].push_back(a.allocate("tool" + std::to_string(i)).id);
    });
  for (auto& th : threads) th.join();
  std::set<std::string> all;
  for (const auto& v : ids) all.insert(v.begin(), v.end());
  EXPECT_EQ(all.size(), std::size_t{kThreads * kEach});
  // The folder agrees: one file per number.
  EXPECT_EQ(list_artifact_ids(dir).size(), std::size_t{kThreads * kEach});
  std::size_t files = 0;
  for (auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, std::size_t{kThreads * kEach});
}

TEST(Artifacts, ConcurrentProcessesNeverShareANumber) {
  TempDir t;
  const fs::path dir = t / "sess";
  constexpr int kProcs = 4, kEach = 25;
  std::vector<pid_t> pids;
  for (int i = 0; i < kProcs; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        ArtifactAllocator a(dir);
        for (int k = 0; k < kEach; ++k) a.allocate("p" + std::to_string(i));
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::size_t files = 0;
  for (auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, std::size_t{kProcs * kEach});
  EXPECT_EQ(list_artifact_ids(dir).size(), std::size_t{kProcs * kEach});
}

TEST(Artifacts, AgentOutputsNumberPerParentAndResume) {
  TempDir t;
  const fs::path dir = t / "sess";
  AgentOutputAllocator a(dir);
  EXPECT_EQ(a.allocate("Explore").id, "0-Explore");
  EXPECT_EQ(a.allocate("Review").id, "1-Review");
  EXPECT_EQ(a.allocate("Child", "0-Explore").id, "0-Explore.0-Child");
  EXPECT_EQ(a.allocate("Child", "0-Explore").id, "0-Explore.1-Child");
  EXPECT_EQ(a.allocate("Deep", "0-Explore.1-Child").id, "0-Explore.1-Child.0-Deep");
  EXPECT_EQ(a.allocate("Next").id, "2-Next") << "children do not count at the top";
  EXPECT_TRUE(fs::is_regular_file(dir / "0-Explore.1-Child.0-Deep.md"));
  // A new allocator (a resumed session) continues after a scan.
  test::write_text(dir / "9-Old.md", "x");
  AgentOutputAllocator resumed(dir);
  EXPECT_EQ(resumed.allocate("New").id, "10-New");
  EXPECT_EQ(resumed.allocate("Kid", "1-Review").id, "1-Review.0-Kid");
  EXPECT_THROW(resumed.allocate("x", "../../etc"), Error);
  EXPECT_THROW(resumed.allocate("a.b"), Error);
  EXPECT_EQ(list_agent_ids(dir).front(), "0-Explore");
}

TEST(Artifacts, ConcurrentAgentOutputsNeverShareANumber) {
  TempDir t;
  const fs::path dir = t / "sess";
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i)
    threads.emplace_back([&, i] {
      AgentOutputAllocator a(dir);
      for (int k = 0; k < 20; ++k) a.allocate("w" + std::to_string(i));
    });
  for (auto& th : threads) th.join();
  std::set<std::string> numbers;
  for (const auto& id : list_agent_ids(dir)) numbers.insert(id.substr(0, id.find('-')));
  EXPECT_EQ(numbers.size(), 120u);
}

TEST(Artifacts, SensitivePaths) {
  for (const char* p : {".env", "a/.env", ".env.local", "server.pem", "id_rsa_key", "x/.git/config"})
    EXPECT_TRUE(is_sensitive_path(p)) << p;
  for (const char* p : {"3.bash.log", "environment", "config", "git/config", "0-Agent.md", "key.txt"})
    EXPECT_FALSE(is_sensitive_path(p)) << p;
}

// --------------------------------------------------------------- resolver

class ResolverTest : public ::testing::Test {
 protected:
  TempDir t;
  fs::path dir = t / "2026_abc";
  std::map<std::string, std::string> blobs;  // hex -> bytes
  UrlResolver resolver{dir, [this](const Digest& d, std::optional<std::uint64_t> size) -> std::optional<std::string> {
                         auto it = blobs.find(d.hex());
                         if (it == blobs.end() || (size && *size != it->second.size())) return std::nullopt;
                         return it->second;
                       }};

  void SetUp() override { fs::create_directories(dir); }
  std::string get(const std::string& url, PageOptions page = {}) { return resolver.resolve(url, page).content; }
  std::string fail(const std::string& url, PageOptions page = {}) {
    return error_of([&] { resolver.resolve(url, page); });
  }
};

TEST_F(ResolverTest, ArtifactByNumber) {
  test::write_text(dir / "0.bash.log", "zero\n");
  test::write_text(dir / "10.python.log", "ten\n");
  test::write_text(dir / "2.bash.log", "two\n");
  EXPECT_EQ(get("artifact://10"), "ten\n");
  EXPECT_EQ(resolver.resolve("artifact://2").content_type, "text/plain");
  EXPECT_EQ(fail("artifact://1"), "Artifact 1 not found. Available: 0, 2, 10");
  EXPECT_EQ(fail("artifact://01"), "Artifact 01 not found. Available: 0, 2, 10");
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_EQ(fail("artifact://1"), "Artifact 1 not found. Available: none");
}

TEST_F(ResolverTest, MissingFolderOrSession) {
  fs::remove_all(dir);
  EXPECT_EQ(fail("artifact://0"), "No artifacts directory found");
  EXPECT_EQ(fail("agent://0-A"), "No artifacts directory found");
  UrlResolver none(std::nullopt, nullptr);
  EXPECT_EQ(error_of([&] { none.resolve("artifact://0"); }), "No artifacts directory found");
  EXPECT_NE(error_of([&] { none.resolve("blob:sha256:" + std::string(64, 'a')); }).find("no blob store"),
            std::string::npos);
}

TEST_F(ResolverTest, HostileIdsAreRefusedBeforeAnyPathIsBuilt) {
  // A file the traversal would reach, to prove it is not reached.
  test::write_text(t / "x", "secret");
  test::write_text(t / "etc.md", "secret");
  for (const char* url : {"artifact://../../x", "artifact://../x", "artifact://", "artifact://0/../../x",
                          "artifact://-1", "agent://..%2F..%2Fetc", "agent://../etc", "agent://..%2Fetc.md",
                          "agent://0-a%2F..%2F..%2Fx", "agent://", "agent://%", "blob:sha256:../x",
                          "blob:sha256:" "ABCDEF", "blob:md5:00"}) {
    const std::string msg = fail(url);
    EXPECT_EQ(msg.find("secret"), std::string::npos) << url;
    EXPECT_NE(msg, "") << url;
    EXPECT_EQ(msg.find("No artifacts directory"), std::string::npos) << url << ": validated first: " << msg;
  }
  EXPECT_NE(fail("artifact://../../x").find("an artifact id is a number"), std::string::npos);
  EXPECT_NE(fail("agent://..%2F..%2Fetc").find("'../../etc' is not an agent output id"), std::string::npos);
  EXPECT_NE(fail("blob:sha256:../x").find("is not a blob URL"), std::string::npos);
  EXPECT_NE(fail("file:///etc/passwd").find("not an internal URL"), std::string::npos);
}

TEST_F(ResolverTest, AgentOutputsAndExtraction) {
  test::write_text(dir / "0-Explore.md", "# Found\nthree files\n");
  test::write_text(dir / "1-Data.md",
                   R"({"a":{"b":[{"c":"first"},{"c":2}],"x/y":true,"0":"zero-key"},"list":[10,20]})");
  test::write_text(dir / "0-Explore.0-Child.md", "child\n");
  EXPECT_EQ(get("agent://0-Explore"), "# Found\nthree files\n");
  EXPECT_EQ(resolver.resolve("agent://0-Explore").content_type, "text/markdown");
  EXPECT_EQ(get("agent://0-Explore.0-Child"), "child\n");
  // Path segments: keys and indexes, percent-decoded.
  EXPECT_EQ(get("agent://1-Data/a/b/0/c"), "first");
  EXPECT_EQ(get("agent://1-Data/a/b/1"), R"({"c":2})");
  EXPECT_EQ(get("agent://1-Data/a/x%2Fy"), "true");
  EXPECT_EQ(get("agent://1-Data/a/0"), "zero-key") << "a number names a key of an object";
  EXPECT_EQ(get("agent://1-Data/list/1/"), "20");
  // Queries: .key, [n] and ['key'].
  EXPECT_EQ(get("agent://1-Data?q=.a.b[0].c"), "first");
  EXPECT_EQ(get("agent://1-Data?q=.a['x/y']"), "true");
  EXPECT_EQ(get("agent://1-Data?q=.list[0]"), "10");
  EXPECT_EQ(get("agent://1-Data?q=%2Ea%2Eb%5B1%5D%2Ec"), "2");
  EXPECT_EQ(get("agent://1-Data?q=."), get("agent://1-Data"));
  EXPECT_EQ(resolver.resolve("agent://1-Data?q=.list").content_type, "application/json");
  // Errors.
  EXPECT_EQ(fail("agent://9-Nope"), "Not found: 9-Nope. Available: 0-Explore, 0-Explore.0-Child, 1-Data");
  EXPECT_NE(fail("agent://1-Data/a?q=.a").find("a path and ?q= extraction cannot be combined"), std::string::npos);
  EXPECT_NE(fail("agent://0-Explore/a").find("not valid JSON"), std::string::npos);
  EXPECT_NE(fail("agent://0-Explore?q=.a").find("not valid JSON"), std::string::npos);
  EXPECT_NE(fail("agent://1-Data?q=.a.nope").find("no key 'nope' in .a"), std::string::npos);
  EXPECT_NE(fail("agent://1-Data?q=.list[5]").find("no element 5 in .list"), std::string::npos);
  EXPECT_NE(fail("agent://1-Data?q=.list.x").find("not an object"), std::string::npos);
  EXPECT_NE(fail("agent://1-Data?q=a").find("bad query 'a' at character 1"), std::string::npos);
  EXPECT_NE(fail("agent://1-Data?q=.a[").find("bad query"), std::string::npos);
  EXPECT_NE(fail("agent://1-Data?q=.a['b").find("bad query"), std::string::npos);
  EXPECT_NE(fail("agent://1-Data?x=1").find("the only query is ?q="), std::string::npos);
}

TEST_F(ResolverTest, PaginationByLines) {
  std::string text;
  for (int i = 1; i <= 10; ++i) text += "line " + std::to_string(i) + "\n";
  test::write_text(dir / "3.bash.log", text);
  const ResolvedUrl page = resolver.resolve("artifact://3", {2, 3});
  EXPECT_EQ(page.content, "line 2\nline 3\nline 4\n");
  EXPECT_EQ(page.notice, "[Showing lines 2-4 of 10. Use --offset 5 to continue.]");
  const ResolvedUrl rest = resolver.resolve("artifact://3", {5, std::nullopt});
  EXPECT_EQ(rest.content, text.substr(text.find("line 5")));
  EXPECT_EQ(rest.notice, "") << "nothing left: no notice";
  EXPECT_EQ(resolver.resolve("artifact://3", {std::nullopt, 1}).content, "line 1\n");
  EXPECT_EQ(resolver.resolve("artifact://3", {10, 5}).content, "line 10\n");
  EXPECT_NE(fail("artifact://3", {11, 1}).find("offset 11 is past the end (10 lines)"), std::string::npos);
  EXPECT_NE(fail("artifact://3", {0, 1}).find("offset counts lines from 1"), std::string::npos);
  EXPECT_NE(fail("artifact://3", {1, 0}).find("limit must be at least 1"), std::string::npos);
  // A last line without a newline counts.
  test::write_text(dir / "4.x.log", "a\nb");
  EXPECT_EQ(resolver.resolve("artifact://4", {2, 1}).content, "b");
  // Agent outputs page too, but not when extracting.
  test::write_text(dir / "0-A.md", "{\"k\":\"v\"}\n");
  EXPECT_EQ(resolver.resolve("agent://0-A", {1, 1}).content, "{\"k\":\"v\"}\n");
  EXPECT_NE(fail("agent://0-A/k", {1, 1}).find("offset and limit cannot be used with extraction"), std::string::npos);
  EXPECT_NE(fail("agent://0-A?q=.k", {std::nullopt, 2}).find("cannot be used with extraction"), std::string::npos);
}

TEST_F(ResolverTest, BlobUrlsAndReferences) {
  const std::string bytes = "picture bytes\nline two\n";
  const Digest d = Sha256::of(bytes);
  blobs[d.hex()] = bytes;
  EXPECT_EQ(get("blob:sha256:" + d.hex()), bytes);
  EXPECT_EQ(get(R"({"$blob":")" + d.hex() + R"(","size":)" + std::to_string(bytes.size()) + "}"), bytes);
  EXPECT_EQ(resolver.resolve("blob:sha256:" + d.hex(), {2, 1}).content, "line two\n");
  EXPECT_NE(fail("blob:sha256:" + std::string(64, '0')).find("is not in the blob store"), std::string::npos);
  EXPECT_NE(fail(R"({"$blob":"zz","size":1})").find("is not a blob reference"), std::string::npos);
}

TEST_F(ResolverTest, SymlinksLeadingOutsideAreRefused) {
  test::write_text(t / "outside.txt", "secret");
  fs::create_symlink(t / "outside.txt", dir / "5.bash.log");
  fs::create_symlink("../outside.txt", dir / "6-Leak.md");
  fs::create_directories(dir / "sub");
  test::write_text(dir / "sub/real.log", "inside\n");
  fs::create_symlink("sub/real.log", dir / "7.bash.log");
  EXPECT_NE(fail("artifact://5").find("symbolic link leading outside the artifacts folder"), std::string::npos);
  EXPECT_NE(fail("agent://6-Leak").find("symbolic link leading outside"), std::string::npos);
  EXPECT_EQ(get("artifact://7"), "inside\n") << "a link that stays inside is fine";
  // A dangling link, a folder and a FIFO under an artifact's name.
  fs::create_symlink(dir / "nowhere", dir / "8.bash.log");
  EXPECT_NE(fail("artifact://8"), "");
  fs::create_directories(dir / "9.bash.log");
  EXPECT_NE(fail("artifact://9").find("not a regular file"), std::string::npos);
  ASSERT_EQ(::mkfifo((dir / "11.bash.log").c_str(), 0600), 0);
  EXPECT_NE(fail("artifact://11").find("not a regular file"), std::string::npos);
}

TEST_F(ResolverTest, SensitiveFilesAreRefusedThroughEveryUrl) {
  test::write_text(dir / "1.pem", "-----BEGIN PRIVATE KEY-----");
  test::write_text(dir / "2.server_key", "k");
  fs::create_directories(dir / "repo/.git");
  test::write_text(dir / "repo/.git/config", "[core]");
  test::write_text(dir / ".env", "TOKEN=x");
  fs::create_symlink("repo/.git/config", dir / "3.bash.log");
  fs::create_symlink(".env", dir / "4.bash.log");
  fs::create_symlink(".env", dir / "0-Agent.md");
  for (const char* url : {"artifact://1", "artifact://2", "artifact://3", "artifact://4", "agent://0-Agent"}) {
    const std::string msg = fail(url);
    EXPECT_NE(msg.find("a sensitive file"), std::string::npos) << url << ": " << msg;
    EXPECT_EQ(msg.find("PRIVATE KEY"), std::string::npos);
  }
}

TEST(PercentDecode, EscapesAndRefusals) {
  EXPECT_EQ(percent_decode("a%2Fb%2fc"), "a/b/c");
  EXPECT_EQ(percent_decode("plain"), "plain");
  EXPECT_EQ(percent_decode("%E2%9C%93"), "\xE2\x9C\x93");
  for (const std::string& bad : std::vector<std::string>{"%", "%2", "%G0", "a%0", "%00", std::string("a\0b", 3)})
    EXPECT_FALSE(percent_decode(bad)) << bad;
}

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
