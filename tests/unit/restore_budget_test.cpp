// What one restored file may grow to (docs/FORMAT.md, "Bounds"), asked of
// the transforms through a BlobSource that counts what it is asked.
#include "core/store/restore_budget.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include "core/documents/document.hpp"
#include "core/format/gzip.hpp"
#include "core/format/json_scan.hpp"
#include "core/format/json_string.hpp"
#include "core/documents/render.hpp"
#include "core/documents/transform.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

// A source holding one blob in memory, counting fetches.
class CountingSource : public BlobSource {
 public:
  explicit CountingSource(std::string bytes) : bytes_(std::move(bytes)), digest_(Sha256::of(bytes_)) {}
  std::optional<std::string> fetch(const Digest& d, std::optional<std::uint64_t>) const override {
    ++fetches;
    if (d != digest_) return std::nullopt;
    return bytes_;
  }
  const Digest& digest() const { return digest_; }
  mutable std::atomic<int> fetches{0};

 private:
  std::string bytes_;
  Digest digest_;
};

std::string references(const Digest& d, std::uint64_t size, int count, const char* encoding = "base64") {
  std::string out = "[";
  for (int i = 0; i < count; ++i)
    out += std::string(i ? "," : "") + R"({"type":"tool_call_response","content":{"$blob":")" + d.hex() +
           R"(","size":)" + std::to_string(size) + R"(,"encoding":")" + encoding + R"("}})";
  return out + "]";
}

TEST(RestoreBudget, EachDistinctBlobIsReadOncePerFile) {
  CountingSource source(std::string(3000, 'z'));
  std::string out;
  smudge(references(source.digest(), 3000, 50), source, SmudgeOptions{}, [&](std::string_view s) { out.append(s); });
  EXPECT_EQ(source.fetches, 1);
  EXPECT_GT(out.size(), 50u * 4000);
}

TEST(RestoreBudget, AFileThatWouldPassTheLimitFailsBeforeAnyBlobIsRead) {
  CountingSource source(std::string(3000, 'z'));
  SmudgeOptions options;
  options.max_file_size = 100000;
  options.path = "bomb/events.json";
  bool wrote = false;
  try {
    smudge(references(source.digest(), 3000, 50), source, options, [&](std::string_view) { wrote = true; });
    FAIL() << "no error";
  } catch (const TooLargeToRestore& e) {
    EXPECT_NE(std::string(e.what()).find("bomb/events.json would expand to more than 100000 bytes"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(source.fetches, 0);
  EXPECT_FALSE(wrote);
  // Within the limit, the same file restores.
  options.max_file_size = 300000;
  EXPECT_NO_THROW(smudge(references(source.digest(), 3000, 50), source, options, [](std::string_view) {}));
}

TEST(RestoreBudget, HostileDeclaredSizesNeitherWrapNorReserve) {
  CountingSource source("x");
  for (const char* encoding : {"base64", "base64url", "text"})
    for (std::uint64_t size : {std::uint64_t{1} << 63, ~std::uint64_t{0}, ~std::uint64_t{0} / 4 * 3}) {
      try {
        smudge(references(source.digest(), size, 1, encoding), source, SmudgeOptions{}, [](std::string_view) {});
        FAIL() << size << " " << encoding;
      } catch (const TooLargeToRestore& e) {
        EXPECT_NE(std::string(e.what()).find(source.digest().hex()), std::string::npos) << e.what();
      }
    }
  EXPECT_EQ(source.fetches, 0);
  EXPECT_EQ(quoted_base64_length(~std::uint64_t{0}), ~std::uint64_t{0});
  EXPECT_EQ(quoted_base64_length(3), 6u);
  EXPECT_EQ(quoted_base64_length(4), 10u);
}

TEST(RestoreBudget, ADisplayShowsAFileOverTheLimitAsCommitted) {
  CountingSource source(std::string(3000, 'z'));
  SmudgeOptions options;
  options.max_file_size = 10000;
  options.keep_missing = true;  // a display
  const std::string in = references(source.digest(), 3000, 50);
  std::string out;
  const auto report =
      smudge_document(DocumentKind::Conversation, in, source, options, [&](std::string_view s) { out.append(s); });
  EXPECT_EQ(out, in);
  ASSERT_EQ(report.warnings.size(), 1u);
  EXPECT_NE(report.warnings[0].find("jpblob.maxBlobSize"), std::string::npos);
}

TEST(RestoreBudget, PrintIsBoundedToo) {
  CountingSource source(std::string(3000, 'z'));
  EXPECT_THROW(render_conversation(references(source.digest(), 3000, 50), source, 100000, "c/events.json"),
               TooLargeToRestore);
  EXPECT_EQ(source.fetches, 0);
  const std::string shown = render_conversation(references(source.digest(), 3000, 50), source, 1 << 20, "c/events.json");
  EXPECT_EQ(source.fetches, 1);
  EXPECT_NE(shown.find(std::string(3000, 'z')), std::string::npos);
}

TEST(RestoreBudget, CleanRefusesWhatSmudgeCouldNotGiveBack) {
  test::TempDir dir;
  const BlobStore store = BlobStore::for_storage(dir / ".jp", dir.path());
  CleanOptions options;
  options.max_file_size = 1000;
  options.path = "big/events.json";
  const std::string in = R"([{"type":"tool_call_response","content":")" + std::string(2000, 'a') + "\"}]";
  bool wrote = false;
  try {
    clean_document(DocumentKind::Conversation, in, store, options, [&](std::string_view) { wrote = true; });
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("git config jpblob.maxBlobSize"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(wrote);
  EXPECT_TRUE(store.entries().empty());
}

}  // namespace
}  // namespace jpblob

namespace jpblob {
namespace {

TEST(RestoreBudget, EscapesAreChargedBeforeTheyAreBuilt) {
  // 3,000 control bytes restore to 18,002: within a 10,000-byte limit by
  // their declared size, past it once escaped.
  CountingSource source(std::string(3000, '\x01'));
  SmudgeOptions options;
  options.max_file_size = 10000;
  EXPECT_THROW(smudge(references(source.digest(), 3000, 1, "text"), source, options, [](std::string_view) {}),
               TooLargeToRestore);
  EXPECT_THROW(render_conversation(references(source.digest(), 3000, 1, "text"), source, 10000, "c"),
               TooLargeToRestore);
}

TEST(RestoreBudget, JsonStringLengthIsWhatTheEncoderWrites) {
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  for (const std::string& text : {std::string(), std::string("plain"), all, std::string("\"\\\n\t\x7f")}) {
    std::string out;
    append_json_string(out, text);
    EXPECT_EQ(json_string_length(text), out.size());
  }
}

TEST(RestoreBudget, AValueWithTooManyJsonValuesIsRefusedNotTreed) {
  std::string many = "[";
  for (std::size_t i = 0; i < kMaxJsonValues; ++i) many += "0,";
  many += "0]";
  std::vector<JsonNode> nodes;
  JsonError error;
  EXPECT_FALSE(scan_json_value(many, 0, nodes, error));
  EXPECT_NE(error.message.find("too many to read"), std::string::npos);
  EXPECT_TRUE(nodes.empty());
}

}  // namespace
}  // namespace jpblob

namespace jpblob {
namespace {

// The limit bounds the restored file, so a file clean accepts at the limit
// (exactly its size) comes back at that limit: the references it replaced
// are not counted on top of what they restore to. Short payloads restore
// to fewer bytes than their references take, and a reference smudge keeps
// (its blob missing, in a display) keeps its own bytes.
TEST(RestoreBudget, WhatCleanAcceptsAtTheLimitSmudgeGivesBack) {
  test::TempDir dir;
  const BlobStore store = BlobStore::for_storage(dir / ".jp", dir.path());
  std::string in = "[";
  for (int i = 0; i < 40; ++i)
    in += std::string(i ? "," : "") + R"({"type":"tool_call_response","content":")" +
          (i % 2 ? std::string(i, 'a') : std::string(300 + i, 'q')) + "\"}";
  in += "]";
  CleanOptions clean_options;
  clean_options.max_file_size = in.size();
  std::string committed;
  clean_document(DocumentKind::Conversation, in, store, clean_options,
                 [&](std::string_view s) { committed.append(s); });
  ASSERT_NE(committed.find("$blob"), std::string::npos);
  SmudgeOptions options;
  options.max_file_size = in.size();
  std::string out;
  smudge_document(DocumentKind::Conversation, committed, StoreBlobSource(store), options,
                  [&](std::string_view s) { out.append(s); });
  EXPECT_EQ(out, in);
  options.max_file_size = in.size() - 1;
  EXPECT_THROW(smudge_document(DocumentKind::Conversation, committed, StoreBlobSource(store), options,
                               [](std::string_view) {}),
               TooLargeToRestore);

  // A reference smudge keeps as it is (a hand-made "text" for bytes that
  // read as base64) counts its own bytes: the file stays this long.
  CountingSource source("aaaa");
  const std::string kept = references(source.digest(), 4, 1, "text");
  options.max_file_size = kept.size() - 1;
  EXPECT_THROW(smudge_document(DocumentKind::Conversation, kept, source, options, [](std::string_view) {}),
               TooLargeToRestore);
  options.max_file_size = kept.size() + 6;  // and what the value would have restored to, charged first
  out.clear();
  smudge_document(DocumentKind::Conversation, kept, source, options, [&](std::string_view s) { out.append(s); });
  EXPECT_EQ(out, kept);
}

}  // namespace
}  // namespace jpblob

namespace jpblob {
namespace {

// Issue 44: a payload over git's core.bigFileThreshold is never read for
// a display; one line names its size and digest in its place, and the
// budget is charged the line, not the payload.
TEST(RestoreBudget, ADisplayNeverReadsAPayloadOverTheBigFileThreshold) {
  CountingSource source(std::string(3000, 'z'));
  const std::string shown = render_conversation(references(source.digest(), 3000, 50), source, 100000, "c", 2999);
  EXPECT_EQ(source.fetches, 0);
  EXPECT_NE(shown.find("<not shown: 3000 bytes, over core.bigFileThreshold (2999), blob:sha256:" +
                       source.digest().hex()),
            std::string::npos)
      << shown;
  EXPECT_EQ(shown.find("zzz"), std::string::npos);
  // At the threshold it is shown.
  EXPECT_NE(render_conversation(references(source.digest(), 3000, 1), source, 100000, "c", 3000).find("zzz"),
            std::string::npos);
}

// An inline payload (a work tree's, or what a display's smudge gave git)
// over the threshold is not even decoded: its length says its size.
TEST(RestoreBudget, ADisplayOfAnInlinePayloadOverTheThresholdDoesNotDecodeIt) {
  CountingSource source("x");
  const std::string payload(4000, 'A');  // base64 of 3,000 bytes
  const std::string in = R"([{"type":"tool_call_response","id":"t","content":")" + payload + "\"}]";
  const std::string shown = render_conversation(in, source, 100000, "c", 1000);
  EXPECT_NE(shown.find("<not shown: 3000 bytes, over core.bigFileThreshold (1000)>"), std::string::npos) << shown;
  EXPECT_EQ(shown.find(payload), std::string::npos);
  EXPECT_NE(render_conversation(in, source, 100000, "c", 3000).find(R"(\u0000\u0000)"), std::string::npos);
}

TEST(RestoreBudget, ABlobFileOverTheThresholdIsOneLine) {
  const std::string bytes(5000, 'q');
  const Digest digest = Sha256::of(bytes);
  const std::string gz = gzip_compress(bytes);
  EXPECT_EQ(render_blob_file(gz, 1 << 20, 4999, digest),
            "<not shown: 5000 bytes, over core.bigFileThreshold (4999), blob:sha256:" + digest.hex() +
                "; `git jpblob cat` gives it>\n");
  EXPECT_EQ(render_blob_file(gz, 1 << 20, 5000), bytes);
  // A trailer that claims 10 bytes does not take the inflate past the
  // threshold: it stops there and says so.
  std::string lying = gz;
  lying.replace(lying.size() - 4, 4, std::string("\x0a\x00\x00\x00", 4));
  EXPECT_EQ(render_blob_file(lying, 1 << 20, 4096), "<not shown: more than 4096 bytes, over core.bigFileThreshold (4096)>\n");
}

}  // namespace
}  // namespace jpblob
