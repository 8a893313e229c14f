// Drives `filter-process` through real pipes, as git does.
#include "filter/process.hpp"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/format/base64.hpp"
#include "core/store/blob_store.hpp"
#include "core/format/digest.hpp"
#include "core/base/error.hpp"
#include "filter/pktline.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

// The server in a child process, in `dir`; the test is git.
class Server {
 public:
  // `memory_limit`, when set, bounds the server's address space
  // (RLIMIT_AS), so that a test can make an allocation fail.
  explicit Server(const fs::path& dir, rlim_t memory_limit = 0) {
    int to[2], from[2];
    if (::pipe(to) || ::pipe(from)) throw std::runtime_error("pipe");
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(to[1]);
      ::close(from[0]);
      int status = 0;
      try {
        if (::chdir(dir.c_str()) != 0) ::_exit(3);
        const rlimit limit{memory_limit, memory_limit};
        if (memory_limit && ::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(4);
        run_filter_process(to[0], from[1], std::nullopt);
      } catch (const Error& e) {
        status = 1;
      }
      ::_exit(status);
    }
    ::close(to[0]);
    ::close(from[1]);
    in_ = to[1];
    out_ = from[0];
    reader_ = std::make_unique<PktReader>(out_);
    writer_ = std::make_unique<PktWriter>(in_);
  }
  ~Server() {
    if (in_ >= 0) ::close(in_);
    ::close(out_);
    if (pid_ > 0) ::waitpid(pid_, nullptr, 0);
  }

  void handshake() {
    writer_->text("git-filter-client");
    writer_->text("version=2");
    writer_->flush_packet();
    writer_->send();
    EXPECT_EQ(reader_->read_list(), (std::vector<std::string>{"git-filter-server", "version=2"}));
    writer_->text("capability=clean");
    writer_->text("capability=smudge");
    writer_->text("capability=delay");
    writer_->flush_packet();
    writer_->send();
    EXPECT_EQ(reader_->read_list(),
              (std::vector<std::string>{"capability=clean", "capability=smudge", "capability=delay"}));
  }

  // A request git lets the filter delay ("can-delay=1"): the status only.
  std::string request_delayed(const std::string& path, const std::string& data,
                              const std::vector<std::string>& metadata = {"blob=" + std::string(40, '1')}) {
    writer_->text("command=smudge");
    writer_->text("pathname=" + path);
    for (const auto& line : metadata) writer_->text(line);
    writer_->text("can-delay=1");
    writer_->flush_packet();
    writer_->content(data);
    writer_->flush_packet();
    writer_->send();
    auto head = reader_->read_list();
    return head.empty() ? "" : head[0];
  }

  // `list_available_blobs`: the paths, and the status after them.
  std::vector<std::string> list_available(std::string* status = nullptr) {
    writer_->text("command=list_available_blobs");
    writer_->flush_packet();
    writer_->send();
    std::vector<std::string> paths;
    for (const auto& line : reader_->read_list()) paths.push_back(line.substr(line.find('=') + 1));
    auto tail = reader_->read_list();
    if (status) *status = tail.empty() ? "" : tail[0];
    return paths;
  }

  struct Reply {
    std::string status;
    std::string content;
  };
  // Sends one request. Git writes the whole file before reading the reply;
  // so does this, from a thread, so a large file fills the pipe both ways.
  // `metadata`: further "key=value" lines, as git sends for a checkout
  // ("blob=<id>", "treeish=<id>").
  Reply request(const std::string& command, const std::string& path, const std::string& data,
                const std::vector<std::string>& metadata = {}) {
    std::thread sender([&] {
      PktWriter w(in_);
      w.text("command=" + command);
      w.text("pathname=" + path);
      for (const auto& line : metadata) w.text(line);
      w.flush_packet();
      w.content(data);
      w.flush_packet();
      w.send();
    });
    Reply r;
    auto head = reader_->read_list();
    r.status = head.empty() ? "" : head[0];
    if (r.status == "status=success") {
      r.content = reader_->read_content();
      auto tail = reader_->read_list();
      if (!tail.empty()) r.status = tail[0];
    }
    sender.join();
    return r;
  }

  int close_and_wait() {
    ::close(in_);
    in_ = -1;
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  int raw_in() const { return in_; }

 private:
  pid_t pid_ = -1;
  int in_ = -1, out_ = -1;
  std::unique_ptr<PktReader> reader_;
  std::unique_ptr<PktWriter> writer_;
};

std::string conversation_of_size(std::size_t size) {
  // A tool response plus a chat request padded to exactly `size` bytes.
  const std::string head = R"([{"type":"tool_call_response","content":"aGVsbG8="},{"type":"chat_request","content":")";
  const std::string tail = "\"}]";
  return head + std::string(size - head.size() - tail.size(), 'p') + tail;
}

TEST(FilterProcess, CleansAndSmudgesManyFilesAtPacketBoundaries) {
  test::GitSandbox g;
  Server s(g.repo());
  s.handshake();
  for (std::size_t size : {std::size_t{200}, kPktMaxPayload, kPktMaxPayload + 1,
                           2 * kPktMaxPayload - 1, 2 * kPktMaxPayload + 1}) {
    const std::string x = conversation_of_size(size);
    ASSERT_EQ(x.size(), size);
    auto c = s.request("clean", ".jp/conversations/1/events.json", x);
    ASSERT_EQ(c.status, "status=success");
    EXPECT_NE(c.content.find("\"$blob\""), std::string::npos);
    auto back = s.request("smudge", ".jp/conversations/1/events.json", c.content);
    ASSERT_EQ(back.status, "status=success");
    EXPECT_TRUE(back.content == x) << size;
  }
  EXPECT_EQ(s.close_and_wait(), 0);
}

TEST(FilterProcess, OneFailedFileDoesNotStopTheRest) {
  test::GitSandbox g;
  Server s(g.repo());
  s.handshake();
  const std::string missing = "[{\"type\":\"tool_call_response\",\"content\":{\"$blob\":\"" +
                              Sha256::of("nowhere").hex() + "\",\"size\":7,\"encoding\":\"text\"}}]";
  // A checkout (git names the blob it writes) of a file whose blob is
  // nowhere fails that file only.
  EXPECT_EQ(s.request("smudge", "a/events.json", missing, {"blob=" + std::string(40, '1')}).status, "status=error");
  EXPECT_EQ(s.request("frobnicate", "b/events.json", "[]").status, "status=error");
  // A display (git diff's textconv: no blob named) shows the reference.
  auto shown = s.request("smudge", "a/events.json", missing);
  EXPECT_EQ(shown.status, "status=success");
  EXPECT_EQ(shown.content, missing);
  auto ok = s.request("clean", "c/events.json", "not json");
  EXPECT_EQ(ok.status, "status=success");
  EXPECT_EQ(ok.content, "not json");
  EXPECT_EQ(s.request("clean", "d/events.json", "").content, "");
  EXPECT_EQ(s.close_and_wait(), 0);
}

std::string reference_to(const Digest& d, const std::string& size, const std::string& encoding) {
  return "{\"type\":\"tool_call_response\",\"content\":{\"$blob\":\"" + d.hex() + "\",\"size\":" + size +
         ",\"encoding\":\"" + encoding + "\"}}";
}

// A work-tree store holding `zeros` zero bytes and the blob "x".
struct TwoBlobs {
  test::GitSandbox g;
  Digest zeros, x;
  explicit TwoBlobs(std::size_t zero_bytes)
      : zeros(BlobStore::for_work_tree(g.repo()).put(std::string(zero_bytes, '\0')).digest),
        x(BlobStore::for_work_tree(g.repo()).put("x").digest) {}
};

// A conversation referencing the blob "x" (TwoBlobs), then `rest` (",{...}"
// events, or nothing), as committed and as restored.
std::string committed_x(const TwoBlobs& blobs, const std::string& rest = "") {
  return "[" + reference_to(blobs.x, "1", "text") + rest + "]";
}
std::string restored_x(const std::string& rest = "") {
  return "[{\"type\":\"tool_call_response\",\"content\":\"x\"}" + rest + "]";
}

// A hostile repository's references (docs/FORMAT.md, "Bounds"): each fails
// its own file, naming it, and the next file is served.
TEST(FilterProcess, HostileReferencesFailOnlyTheirFile) {
  const std::size_t zero_bytes = 16 << 20;
  TwoBlobs blobs(zero_bytes);
  const Digest &z = blobs.zeros, &x = blobs.x;
  Server s(blobs.g.repo());
  s.handshake();
  const std::vector<std::string> checkout = {"blob=" + std::string(40, '1')};
  for (const char* size : {"9223372036854775808", "18446744073709551615"})
    for (const char* encoding : {"base64", "text", "base64url"})
      EXPECT_EQ(s.request("smudge", "huge/events.json", "[" + reference_to(x, size, encoding) + "]", checkout).status,
                "status=error")
          << size << " " << encoding;
  // 60 references to one 16 MB blob of zeros: 1.3 GB of base64 asked for.
  std::string bomb = "[";
  for (int i = 0; i < 60; ++i) bomb += (i ? "," : "") + reference_to(z, std::to_string(zero_bytes), "base64");
  bomb += "]";
  EXPECT_EQ(s.request("smudge", "bomb/events.json", bomb, checkout).status, "status=error");
  // A display shows the bomb as committed.
  auto shown = s.request("smudge", "bomb/events.json", bomb);
  EXPECT_EQ(shown.status, "status=success");
  EXPECT_EQ(shown.content, bomb);
  auto fine = s.request("smudge", "fine/events.json", "[" + reference_to(x, "1", "text") + "]", checkout);
  EXPECT_EQ(fine.status, "status=success");
  EXPECT_EQ(fine.content, "[{\"type\":\"tool_call_response\",\"content\":\"x\"}]");
  EXPECT_EQ(s.close_and_wait(), 0);
}

// A failure that is not an Error (here memory running out under a limit)
// also fails only its file.
TEST(FilterProcess, AnyFailureOfOneFileKeepsTheServerServing) {
  const std::size_t zero_bytes = 100 << 20;
  TwoBlobs blobs(zero_bytes);
  const Digest &z = blobs.zeros, &x = blobs.x;
  Server s(blobs.g.repo(), rlim_t{320} << 20);
  s.handshake();
  // Within jpblob.maxBlobSize, but 100 MB read plus 4 × 133 MB of base64
  // do not fit in 320 MB.
  std::string big = "[";
  for (int i = 0; i < 4; ++i) big += (i ? "," : "") + reference_to(z, std::to_string(zero_bytes), "base64");
  big += "]";
  EXPECT_EQ(s.request("smudge", "big/events.json", big, {"blob=" + std::string(40, '1')}).status, "status=error");
  auto fine = s.request("smudge", "fine/events.json", "[" + reference_to(x, "1", "text") + "]");
  EXPECT_EQ(fine.status, "status=success");
  EXPECT_EQ(s.close_and_wait(), 0);
}

// A workspace that cannot be opened (here a store linking outside) fails
// each file with its reason; the server does not die before git hears it.
TEST(FilterProcess, AnUnusableWorkspaceFailsEachFileAndKeepsServing) {
  test::GitSandbox g;
  test::TempDir outside;
  fs::create_directories(g.repo() / ".jp");
  fs::create_symlink(outside.path(), g.repo() / ".jp/blobs");
  Server s(g.repo());
  s.handshake();
  const std::string x = conversation_of_size(300);
  EXPECT_EQ(s.request("clean", "a/events.json", x).status, "status=error");
  EXPECT_EQ(s.request("clean", "b/events.json", x).status, "status=error");
  EXPECT_EQ(s.close_and_wait(), 0);
  EXPECT_TRUE(fs::is_empty(outside.path()));
}

TEST(FilterProcess, LargeFilesDoNotDeadlock) {
  test::GitSandbox g;
  Server s(g.repo());
  s.handshake();
  std::string payload;
  while (payload.size() < (20u << 20)) payload += "twenty megabytes of tool output\n";
  const std::string x = "[{\"type\":\"chat_request\",\"content\":\"" + std::string(1 << 20, 'q') +
                        "\"},{\"type\":\"tool_call_response\",\"content\":\"" +
                        base64_encode(payload, Base64Alphabet::Standard) + "\"}]";
  auto c = s.request("clean", "big/events.json", x);
  ASSERT_EQ(c.status, "status=success");
  EXPECT_LT(c.content.size(), (1u << 20) + 1000);
  auto back = s.request("smudge", "big/events.json", c.content);
  EXPECT_TRUE(back.content == x);
  EXPECT_EQ(s.close_and_wait(), 0);
}

// git's delayed checkout (gitattributes(5), "Delay"): every smudge it lets
// wait is answered "delayed", listed once when ready, and fetched with an
// empty content; a failure shows when git fetches the file.
TEST(FilterProcess, DelayedSmudgesAreListedOnceAndFetched) {
  TwoBlobs blobs(10);
  Server s(blobs.g.repo());
  s.handshake();
  const std::string missing = "[{\"type\":\"tool_call_response\",\"content\":{\"$blob\":\"" +
                              Sha256::of("nowhere").hex() + "\",\"size\":7,\"encoding\":\"text\"}}]";
  std::map<std::string, std::string> sent;
  for (int i = 0; i < 40; ++i) {
    const std::string path = ".jp/conversations/" + std::to_string(i) + "/events.json";
    sent[path] = committed_x(blobs, ",{\"n\":" + std::to_string(i) + "}");
    ASSERT_EQ(s.request_delayed(path, sent[path]), "status=delayed");
  }
  ASSERT_EQ(s.request_delayed("bad/events.json", missing), "status=delayed");
  std::set<std::string> seen;
  for (;;) {
    std::string status;
    const auto paths = s.list_available(&status);
    EXPECT_EQ(status, "status=success");
    if (paths.empty()) break;
    for (const auto& path : paths) {
      EXPECT_TRUE(seen.insert(path).second) << path << " listed twice";
      auto r = s.request("smudge", path, "", {"blob=" + std::string(40, '1')});
      if (path == "bad/events.json") {
        EXPECT_EQ(r.status, "status=error");
        continue;
      }
      ASSERT_EQ(r.status, "status=success") << path;
      EXPECT_EQ(r.content, "[{\"type\":\"tool_call_response\",\"content\":\"x\"}," +
                               sent[path].substr(sent[path].find("{\"n\"")));
    }
  }
  EXPECT_EQ(seen.size(), 41u);
  // A path no longer delayed is an ordinary smudge again: its (empty)
  // content is what it gives back.
  EXPECT_EQ(s.request("smudge", ".jp/conversations/0/events.json", "").content, "");
  EXPECT_EQ(s.close_and_wait(), 0);
}

// git can give up on a checkout with files still delayed and close the
// pipe: the server ends cleanly. A path delayed again replaces the first.
TEST(FilterProcess, DelayedSmudgesLeftBehindEndCleanly) {
  TwoBlobs blobs(10);
  Server s(blobs.g.repo());
  s.handshake();
  const std::string first = committed_x(blobs);
  const std::string second = committed_x(blobs, ",{\"again\":1}");
  ASSERT_EQ(s.request_delayed("a/events.json", first), "status=delayed");
  ASSERT_EQ(s.request_delayed("a/events.json", second), "status=delayed");
  auto paths = s.list_available();
  ASSERT_EQ(paths, std::vector<std::string>{"a/events.json"});
  EXPECT_EQ(s.request("smudge", "a/events.json", "").content, restored_x(",{\"again\":1}"));
  EXPECT_TRUE(s.list_available().empty());
  for (int i = 0; i < 20; ++i)
    ASSERT_EQ(s.request_delayed("left/" + std::to_string(i) + "/events.json", first), "status=delayed");
  EXPECT_EQ(s.close_and_wait(), 0);
}

// Only git's fetch of a listed file (no content, no can-delay) takes the
// stored result. A new smudge of that path, delayed or not, carries its own
// content and is answered from it, never with the earlier file's bytes.
TEST(FilterProcess, ANewSmudgeOfAListedPathIsNotAnsweredWithTheOldResult) {
  TwoBlobs blobs(10);
  Server s(blobs.g.repo());
  s.handshake();
  const std::string old_file = committed_x(blobs, ",{\"old\":1}");
  const std::string new_file = committed_x(blobs, ",{\"new\":1}");
  const std::string new_smudged = restored_x(",{\"new\":1}");
  ASSERT_EQ(s.request_delayed("a/events.json", old_file), "status=delayed");
  ASSERT_EQ(s.list_available(), std::vector<std::string>{"a/events.json"});
  // Listed, never fetched; a smudge that may not wait comes with content.
  EXPECT_EQ(s.request("smudge", "a/events.json", new_file, {"blob=" + std::string(40, '1')}).content, new_smudged);
  ASSERT_EQ(s.request_delayed("b/events.json", old_file), "status=delayed");
  ASSERT_EQ(s.list_available(), std::vector<std::string>{"b/events.json"});
  // Listed, never fetched; delayed again with other content.
  ASSERT_EQ(s.request_delayed("b/events.json", new_file), "status=delayed");
  ASSERT_EQ(s.list_available(), std::vector<std::string>{"b/events.json"});
  EXPECT_EQ(s.request("smudge", "b/events.json", "", {"blob=" + std::string(40, '1')}).content, new_smudged);
  EXPECT_TRUE(s.list_available().empty());
  EXPECT_EQ(s.close_and_wait(), 0);
}

TEST(FilterProcess, TruncatedStreamEndsWithAnError) {
  test::GitSandbox g;
  Server s(g.repo());
  s.handshake();
  const std::string cut = "0015command=clean\n0018pathname=x/events.json\n0000ffff[{\"type\"";
  ASSERT_EQ(::write(s.raw_in(), cut.data(), cut.size()), static_cast<ssize_t>(cut.size()));
  EXPECT_EQ(s.close_and_wait(), 1);
}

}  // namespace
}  // namespace jpblob
