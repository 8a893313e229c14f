#include "core/documents/session_jsonl.hpp"

#include <gtest/gtest.h>

#include <random>

#include "core/format/base64.hpp"
#include "core/documents/document.hpp"
#include "core/base/error.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

std::string image_block(const std::string& bytes, const std::string& mime = "image/png") {
  return R"({"type":"image","data":")" + base64_encode(bytes, Base64Alphabet::Standard) +
         R"(","mimeType":")" + mime + R"("})";
}

std::string message_line(const std::string& content_items) {
  return R"({"type":"message","id":"m1","message":{"role":"user","content":[{"type":"text","text":"look"},)" +
         content_items + "]}}";
}

struct Outcome {
  std::string out;
  TransformReport report;
};

class SessionTest : public ::testing::Test {
 protected:
  test::TempDir dir;
  BlobStore store = BlobStore::for_storage(dir / ".jp", dir.path());

  Outcome externalize(std::string_view in) {
    Outcome r;
    CleanOptions options;
    options.path = "s.jsonl";
    r.report = externalize_session(in, store, options, [&](std::string_view s) { r.out.append(s); });
    return r;
  }
  Outcome load(std::string_view in) {
    Outcome r;
    StoreBlobSource source(store);
    SmudgeOptions options;
    options.path = "s.jsonl";
    r.report = load_session(in, source, options, [&](std::string_view s) { r.out.append(s); });
    return r;
  }
  std::size_t blob_count() { return test::count_files(dir / ".jp/blobs"); }
};

TEST_F(SessionTest, LargeImagesBecomeBlobUrlsAndComeBackByteIdentical) {
  const std::string a = test::random_bytes(50 * 1024, 1), b = test::random_bytes(50 * 1024, 2), c = test::random_bytes(50 * 1024, 3);
  const std::string session = R"({"type":"session","version":3,"id":"abc"})"
                              "\n" + message_line(image_block(a)) + "\n" +
                              message_line(image_block(b) + "," + image_block(c, "image/jpeg")) + "\n";
  const Outcome cleaned = externalize(session);
  EXPECT_EQ(cleaned.report.replaced, 3u);
  EXPECT_EQ(cleaned.report.blobs_written, 3u);
  EXPECT_EQ(blob_count(), 3u);
  EXPECT_LT(cleaned.out.size(), 2000u);
  EXPECT_NE(cleaned.out.find("\"data\":\"blob:sha256:" + Sha256::of(a).hex() + "\""), std::string::npos);
  EXPECT_TRUE(cleaned.report.warnings.empty());
  // The blob holds the decoded picture, as the seed's store does.
  EXPECT_EQ(store.get(Sha256::of(b)).value(), b);

  const Outcome loaded = load(cleaned.out);
  EXPECT_EQ(loaded.out, session);
  EXPECT_EQ(loaded.report.replaced, 3u);
  EXPECT_EQ(externalize(loaded.out).out, cleaned.out) << "clean(smudge(clean(x))) == clean(x)";
  EXPECT_EQ(externalize(cleaned.out).out, cleaned.out) << "clean is idempotent";
}

TEST_F(SessionTest, ThresholdIsOneThousandTwentyFourBase64Characters) {
  // 768 bytes encode to exactly 1,024 characters; 765 to 1,020.
  const std::string at = test::random_bytes(768, 4), below = test::random_bytes(765, 5);
  const std::string session = message_line(image_block(at) + "," + image_block(below)) + "\n";
  const Outcome cleaned = externalize(session);
  EXPECT_EQ(cleaned.report.replaced, 1u);
  EXPECT_NE(cleaned.out.find(base64_encode(below, Base64Alphabet::Standard)), std::string::npos);
  EXPECT_EQ(cleaned.out.find(base64_encode(at, Base64Alphabet::Standard)), std::string::npos);
  EXPECT_EQ(load(cleaned.out).out, session);
}

TEST_F(SessionTest, OnlyImageBlocksInContentArraysMove) {
  const std::string big = base64_encode(test::random_bytes(4096, 6), Base64Alphabet::Standard);
  const std::vector<std::string> untouched = {
      // not an image
      R"({"content":[{"type":"text","data":")" + big + R"("}]})",
      // not under `content`
      R"({"attachments":[{"type":"image","data":")" + big + R"("}]})",
      // `content` is an object, not an array
      R"({"content":{"type":"image","data":")" + big + R"("}})",
      // not canonical base64 (a line break inside)
      R"({"content":[{"type":"image","data":")" + big.substr(0, 2000) + "\\n" + big.substr(2000) + R"("}]})",
      // url-safe alphabet: not what loading writes back
      R"({"content":[{"type":"image","data":")" + std::string(2000, '-') + R"("}]})",
  };
  for (const auto& line : untouched) {
    const Outcome cleaned = externalize(line + "\n");
    EXPECT_EQ(cleaned.out, line + "\n") << line.substr(0, 60);
    EXPECT_EQ(cleaned.report.replaced, 0u);
  }
  EXPECT_EQ(blob_count(), 0u);
  // Nested deep inside a tool result, it moves.
  const std::string nested = R"({"message":{"content":[{"type":"toolResult","content":[{"type":"image","data":")" +
                             big + R"("}]}]}})";
  EXPECT_EQ(externalize(nested).report.replaced, 1u);
}

TEST_F(SessionTest, LinesThatAreNotJsonStayAndTheRestIsStillProcessed) {
  const std::string img = test::random_bytes(3000, 7);
  const std::string session = message_line(image_block(img)) + "\n{\"type\":\"message\",\"trunc" + "\n" +
                              message_line(image_block(img)) + "\r\n\n   \n";
  const Outcome cleaned = externalize(session);
  EXPECT_EQ(cleaned.report.replaced, 2u);
  ASSERT_EQ(cleaned.report.warnings.size(), 1u);
  EXPECT_NE(cleaned.report.warnings[0].find("1 line(s) are not valid JSON (line 2"), std::string::npos)
      << cleaned.report.warnings[0];
  EXPECT_NE(cleaned.out.find("\n{\"type\":\"message\",\"trunc\n"), std::string::npos);
  EXPECT_EQ(load(cleaned.out).out, session);
}

TEST_F(SessionTest, NoFinalNewlineAndEmptyInputAreKept) {
  const std::string img = test::random_bytes(2000, 8);
  const std::string session = message_line(image_block(img));
  EXPECT_EQ(load(externalize(session).out).out, session);
  EXPECT_EQ(externalize("").out, "");
  EXPECT_EQ(load("").out, "");
}

TEST_F(SessionTest, MissingBlobLeavesTheReferenceWithOneWarningAndTheRestLoads) {
  const std::string a = test::random_bytes(2000, 9), b = test::random_bytes(2000, 10);
  const std::string session = message_line(image_block(a)) + "\n" + message_line(image_block(b)) + "\n" +
                              message_line(image_block(b)) + "\n";
  const Outcome cleaned = externalize(session);
  fs::remove(store.path_of(Sha256::of(b)));
  const Outcome loaded = load(cleaned.out);
  ASSERT_EQ(loaded.report.warnings.size(), 1u) << "one warning for the missing blob, used twice";
  EXPECT_NE(loaded.report.warnings[0].find("blob " + Sha256::of(b).hex() + " referenced by s.jsonl is missing"),
            std::string::npos)
      << loaded.report.warnings[0];
  EXPECT_EQ(loaded.report.replaced, 1u);
  EXPECT_NE(loaded.out.find(base64_encode(a, Base64Alphabet::Standard)), std::string::npos);
  EXPECT_NE(loaded.out.find("blob:sha256:" + Sha256::of(b).hex()), std::string::npos);
  EXPECT_EQ(externalize(loaded.out).out, cleaned.out);
}

TEST_F(SessionTest, CorruptBlobIsAWarningNotACrash) {
  const std::string a = test::random_bytes(2000, 11);
  const std::string cleaned = externalize(message_line(image_block(a)) + "\n").out;
  const fs::path file = store.path_of(Sha256::of(a));
  fs::permissions(file, fs::perms::owner_write, fs::perm_options::add);
  test::write_text(file, "not gzip at all");
  const Outcome loaded = load(cleaned);
  EXPECT_EQ(loaded.out, cleaned);
  ASSERT_EQ(loaded.report.warnings.size(), 1u);
  EXPECT_NE(loaded.report.warnings[0].find("corrupt"), std::string::npos) << loaded.report.warnings[0];
}

TEST_F(SessionTest, AHandWrittenReferenceToASmallBlobStaysAReference) {
  // Loading it inline would give an image externalizing keeps inline, and
  // the file would change on the next add.
  const Digest small = store.put(std::string("tiny")).digest;
  const std::string line = R"({"content":[{"type":"image","data":"blob:sha256:)" + small.hex() + R"("}]})" "\n";
  EXPECT_EQ(load(line).out, line);
}

// The limit is what the loaded session holds: a URL a restored image
// replaces is not counted on top of it, so a session externalized at the
// limit loads at it; a URL that stays counts its own bytes.
TEST_F(SessionTest, WhatIsExternalizedAtTheLimitLoadsAtIt) {
  const std::string in = message_line(image_block(test::random_bytes(1500, 3)) + "," + image_block(test::random_bytes(1600, 4))) +
                         "\n" + message_line(image_block(test::random_bytes(2000, 9))) + "\n";
  const Outcome stored = externalize(in);
  ASSERT_NE(stored.out.find("blob:sha256:"), std::string::npos);
  StoreBlobSource source(store);
  SmudgeOptions options;
  options.path = "s.jsonl";
  options.max_file_size = in.size();
  std::string out;
  load_session(stored.out, source, options, [&](std::string_view s) { out.append(s); });
  EXPECT_EQ(out, in);
  options.max_file_size = in.size() - 1;
  EXPECT_THROW(load_session(stored.out, source, options, [](std::string_view) {}), Error);

  options.max_file_size = stored.out.size() - 1;  // no blob found: every URL stays
  test::TempDir empty;
  const BlobStore none = BlobStore::for_storage(empty / ".jp", empty.path());
  EXPECT_THROW(load_session(stored.out, StoreBlobSource(none), options, [](std::string_view) {}), Error);
}

TEST_F(SessionTest, ImagesReportsReferencesAndWhatWouldBeStored) {
  const std::string a = test::random_bytes(2000, 12), b = test::random_bytes(2000, 13);
  const std::string half = externalize(message_line(image_block(a)) + "\n").out + message_line(image_block(b)) +
                           "\nnot json\n";
  const SessionImages images = session_images(half, 0);
  ASSERT_EQ(images.referenced.size(), 1u);
  EXPECT_EQ(images.referenced[0], Sha256::of(a));
  ASSERT_EQ(images.inline_images.size(), 1u);
  EXPECT_EQ(images.inline_images[0].digest, Sha256::of(b));
  EXPECT_EQ(images.inline_images[0].size, b.size());
}

TEST_F(SessionTest, DocumentKindFollowsTheFileName) {
  EXPECT_EQ(document_kind(".jp/sessions/x/2026_abc.jsonl"), DocumentKind::Session);
  EXPECT_EQ(document_kind("agents/s.jsonl"), DocumentKind::Session);
  EXPECT_EQ(document_kind(".jp/conversations/1/events.json"), DocumentKind::Conversation);
  EXPECT_EQ(document_kind("<stdin>"), DocumentKind::Conversation);
  // The same dispatch drives clean_document.
  const std::string img = test::random_bytes(2000, 14);
  std::string out;
  clean_document(DocumentKind::Session, message_line(image_block(img)), store, {},
                 [&](std::string_view s) { out.append(s); });
  EXPECT_NE(out.find("blob:sha256:"), std::string::npos);
}

TEST_F(SessionTest, AFullStoreWritesNothing) {
  // A store that cannot be created (its parent is a file): clean throws and
  // the sink is never called.
  test::write_text(dir / "file", "x");
  BlobStore bad = BlobStore::for_storage(dir / "file", dir.path());
  bool called = false;
  CleanOptions options;
  EXPECT_THROW(externalize_session(message_line(image_block(test::random_bytes(2000, 15))), bad, options,
                                   [&](std::string_view) { called = true; }),
               Error);
  EXPECT_FALSE(called);
}

}  // namespace
}  // namespace jpblob
