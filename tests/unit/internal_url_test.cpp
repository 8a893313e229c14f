#include "core/artifacts/internal_url.hpp"

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

// oh-my-pi names subagent outputs by name since 2026 ("Anna", a repeated
// name "Anna-2", a child "Anna.Bob"), and agent://Parent/Child names the
// child's output when there is one.
TEST_F(ResolverTest, NameFirstAgentIdsAndTheHierarchyHop) {
  test::write_text(dir / "Anna.md", R"({"Bob":"a key of Anna's output","n":1})");
  test::write_text(dir / "Anna-2.md", "second Anna\n");
  test::write_text(dir / "Anna.Bob.md", "Bob's own output\n");
  test::write_text(dir / "Parent.Child.md", "nested\n");
  test::write_text(dir / "0-Old.md", "numbered\n");
  EXPECT_EQ(get("agent://Anna-2"), "second Anna\n");
  EXPECT_EQ(resolver.resolve("agent://Anna-2").content_type, "text/markdown");
  EXPECT_EQ(get("agent://Parent.Child"), "nested\n");
  EXPECT_EQ(get("agent://0-Old"), "numbered\n");
  EXPECT_EQ(get("agent://Anna.Bob"), "Bob's own output\n");
  EXPECT_EQ(get("agent://Anna/Bob"), "Bob's own output\n") << "a nested output wins over extraction";
  EXPECT_EQ(get("agent://Parent/Child", {1, 1}), "nested\n") << "a hop is no extraction: it pages";
  EXPECT_EQ(get("agent://Anna/n"), "1") << "no Anna.n.md: the path extracts";
  EXPECT_EQ(get("agent://Anna?q=.Bob"), "a key of Anna's output") << "?q= always extracts";
  EXPECT_EQ(fail("agent://Zoe"), "Not found: Zoe. Available: 0-Old, Anna, Anna-2, Anna.Bob, Parent.Child");
  EXPECT_NE(fail("agent://Anna..Bob").find("is not an agent output id"), std::string::npos);
  EXPECT_NE(fail("agent://An%20na").find("is not an agent output id"), std::string::npos);
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

}  // namespace
}  // namespace jpblob
