// The image shapes of the three agents whose sessions git-jpblob keeps
// small (core/documents/image_sites): Claude Code transcripts, and today's
// oh-my-pi (`images`, `image_generation_call`, `image_url` data URLs), each
// externalized to the bytes and digest the agent itself would name, and
// loaded back byte for byte.
#include <gtest/gtest.h>

#include <random>

#include "core/documents/document.hpp"
#include "core/documents/session_jsonl.hpp"
#include "core/format/base64.hpp"
#include "session_store_fixture.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

std::string b64(const std::string& bytes) { return base64_encode(bytes, Base64Alphabet::Standard); }
std::string url_of(const std::string& bytes) { return "blob:sha256:" + Sha256::of(bytes).hex(); }

class ShapesTest : public test::SessionStoreTest {};

// ------------------------------------------------------------ Claude Code

// Lines in the shape Claude Code writes to ~/.claude/projects/<project>/
// <session>.jsonl (one JSON object a line; image blocks as in Anthropic's
// Messages API).
std::string claude_image(const std::string& data, const std::string& mime = "image/png") {
  return R"({"type":"image","source":{"type":"base64","media_type":")" + mime + R"(","data":")" + data + R"("}})";
}
std::string claude_user(const std::string& content, const std::string& uuid) {
  return R"({"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/home/u/proj","sessionId":"5c1e","version":"1.0.98","gitBranch":"main","type":"user","message":{"role":"user","content":[)" +
         content + R"(]},"uuid":")" + uuid + R"(","timestamp":"2026-11-20T10:00:00.000Z"})";
}

TEST_F(ShapesTest, ClaudeCodeImagesMoveAtTopLevelAndInsideToolResults) {
  const std::string shot = test::random_bytes(40 * 1024, 1), pasted = test::random_bytes(3000, 2), tiny = test::random_bytes(60, 3);
  const std::string session =
      R"({"type":"summary","summary":"Fix the login page","leafUuid":"u4"})" "\n" +
      claude_user(R"({"type":"text","text":"what is wrong here?"},)" + claude_image(b64(pasted), "image/jpeg"), "u1") +
      "\n"
      R"({"parentUuid":"u1","type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"/home/u/proj/shot.png"}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":5}},"uuid":"u2","timestamp":"2026-11-20T10:00:01.000Z"})"
      "\n" +
      claude_user(R"({"tool_use_id":"toolu_1","type":"tool_result","content":[)" + claude_image(b64(shot)) + "," +
                      claude_image(b64(tiny)) + R"(]})",
                  "u3") +
      "\n"
      R"({"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isMeta":false,"uuid":"u4"})"
      "\n";
  TransformReport report;
  const std::string cleaned = externalize(session, 0, &report);
  EXPECT_EQ(report.replaced, 3u) << "every base64 source, small ones too";
  EXPECT_TRUE(report.warnings.empty());
  for (const std::string* bytes : {&shot, &pasted, &tiny}) {
    EXPECT_NE(cleaned.find(R"("data":")" + url_of(*bytes) + "\""), std::string::npos);
    EXPECT_EQ(store.get(Sha256::of(*bytes)).value(), *bytes) << "the blob holds the decoded picture";
  }
  EXPECT_EQ(cleaned.find(b64(tiny)), std::string::npos);
  EXPECT_LT(cleaned.size(), 4000u);
  EXPECT_NE(cleaned.find(R"("media_type":"image/jpeg")"), std::string::npos) << "the rest stays";
  expect_round_trip(session);
  EXPECT_EQ(session_images(cleaned, 0).referenced.size(), 3u);
  EXPECT_EQ(session_images(session, 0).inline_images.size(), 3u);
}

TEST_F(ShapesTest, ClaudeCodeLookalikesStayInline) {
  const std::string big = b64(test::random_bytes(3000, 4));
  const std::vector<std::string> untouched = {
      // a URL source: nothing inline
      claude_user(R"({"type":"image","source":{"type":"url","url":"https://example.com/a.png"}})", "a"),
      // `source.type` is not base64
      claude_user(R"({"type":"image","source":{"type":"file","data":")" + big + R"("}})", "b"),
      // empty, and not canonical base64 (missing padding, a line break escape)
      claude_user(claude_image(""), "d"), claude_user(claude_image(big.substr(0, big.size() - 1)), "e"),
      claude_user(claude_image(big.substr(0, 100) + "\\n" + big.substr(100)), "f"),
      // a cut-off line
      claude_user(claude_image(big), "g").substr(0, 300),
  };
  for (const auto& line : untouched) {
    TransformReport report;
    EXPECT_EQ(externalize(line + "\n", 0, &report), line + "\n") << line.substr(0, 120);
    EXPECT_EQ(report.replaced, 0u);
  }
  EXPECT_EQ(test::count_files(dir / ".jp/blobs"), 0u);
}

// ------------------------------------------------------------ oh-my-pi

// oh-my-pi's session-persistence.ts names a blob by the SHA-256 of what it
// stores: the decoded bytes of base64 `data` and `result`, the UTF-8 text
// of an image data URL. These tests compute the same digests independently.

TEST_F(ShapesTest, OhMyPiImagesUnderTheImagesKey) {
  const std::string a = test::random_bytes(5000, 5), b = test::random_bytes(2000, 6), small = test::random_bytes(600, 7);
  const std::string session =
      R"({"type":"message","id":"e1","parentId":null,"message":{"role":"user","content":"see attached","images":[{"data":")" +
      b64(a) + R"(","mimeType":"image/png"},{"type":"image","data":")" + b64(b) +
      R"("},{"data":")" + b64(small) + R"(","mimeType":"image/png"},{"data":")" + b64(b) +
      R"(","mimeType":"text/plain"}]}})" "\n"
      R"({"type":"custom","details":{"images":{"data":")" + b64(b) + R"(","mimeType":"IMAGE/WEBP"}}})" "\n";
  TransformReport report;
  const std::string cleaned = externalize(session, 0, &report);
  EXPECT_EQ(report.replaced, 3u) << "png and image-typed entries, and a direct object; not small, not text/plain";
  EXPECT_NE(cleaned.find(R"({"data":")" + url_of(a) + R"(","mimeType":"image/png"})"), std::string::npos);
  EXPECT_NE(cleaned.find(b64(small)), std::string::npos);
  EXPECT_NE(cleaned.find(R"(","mimeType":"text/plain")"), std::string::npos);
  EXPECT_NE(cleaned.find(b64(b) + R"(","mimeType":"text/plain")"), std::string::npos);
  EXPECT_EQ(store.get(Sha256::of(a)).value(), a);
  expect_round_trip(session);
}

TEST_F(ShapesTest, OhMyPiImageGenerationCallResults) {
  const std::string picture = test::random_bytes(8000, 8), small = test::random_bytes(300, 9);
  const std::string session =
      R"({"type":"message","id":"e2","message":{"role":"assistant","content":[{"type":"text","text":"here"}],"providerPayload":{"type":"openaiResponsesHistory","items":[{"type":"image_generation_call","id":"ig_1","status":"completed","result":")" +
      b64(picture) + R"("},{"type":"image_generation_call","id":"ig_2","status":"completed","result":")" + b64(small) +
      R"("},{"type":"message","result":")" + b64(picture) + R"("}]}}})" "\n";
  TransformReport report;
  const std::string cleaned = externalize(session, 0, &report);
  EXPECT_EQ(report.replaced, 1u);
  EXPECT_NE(cleaned.find(R"("id":"ig_1","status":"completed","result":")" + url_of(picture) + "\""), std::string::npos);
  EXPECT_EQ(store.get(Sha256::of(picture)).value(), picture);
  expect_round_trip(session);
}

TEST_F(ShapesTest, OhMyPiImageUrlDataUrlsKeepTheirTextWhateverTheirSize) {
  const std::string big_url = "data:image/png;base64," + b64(test::random_bytes(4000, 10));
  const std::string small_url = "data:image/jpeg;base64," + b64(test::random_bytes(30, 11));
  const std::string session =
      R"({"type":"message","message":{"role":"user","providerPayload":{"input":[{"type":"input_image","image_url":")" +
      big_url + R"(","detail":"auto"},{"type":"input_image","image_url":")" + small_url +
      R"("},{"type":"input_image","image_url":"https://example.com/a.png"},{"type":"input_image","image_url":"data:text/plain;base64,aGk="},{"type":"image_url","image_url":{"url":")" +
      small_url + R"("}}]}}})" "\n";
  TransformReport report;
  const std::string cleaned = externalize(session, 0, &report);
  EXPECT_EQ(report.replaced, 2u) << "no threshold; not https, not text, not an object's url";
  EXPECT_EQ(store.get(Sha256::of(big_url)).value(), big_url) << "the blob holds the URL text itself";
  EXPECT_EQ(store.get(Sha256::of(small_url)).value(), small_url);
  EXPECT_NE(cleaned.find(R"("image_url":")" + url_of(small_url) + "\""), std::string::npos);
  EXPECT_NE(cleaned.find(R"({"url":")" + small_url + "\"}"), std::string::npos);
  expect_round_trip(session);
}

TEST_F(ShapesTest, SignedBlocksAreLeftAsOhMyPiLeavesThem) {
  const std::string big = b64(test::random_bytes(3000, 12));
  const std::string image = R"({"data":")" + big + R"(","mimeType":"image/png"})";
  const std::string session =
      R"({"message":{"content":[{"type":"toolCall","id":"c1","name":"look","arguments":{"images":[)" + image +
      R"(]},"thoughtSignature":"sig"},{"type":"toolCall","id":"c2","name":"look","arguments":{"images":[)" + image +
      R"(]}}]},"preserveData":{"anthropicCompaction":{"content":"opaque","images":[)" + image + R"(]}}})" "\n";
  TransformReport report;
  const std::string cleaned = externalize(session, 0, &report);
  EXPECT_EQ(report.replaced, 1u) << "only the unsigned tool call's image";
  EXPECT_NE(cleaned.find(R"("thoughtSignature":"sig")"), std::string::npos);
  std::size_t inline_copies = 0;
  for (auto at = cleaned.find(big); at != std::string::npos; at = cleaned.find(big, at + 1)) ++inline_copies;
  EXPECT_EQ(inline_copies, 2u) << "the signed call's and the compaction state's";
  expect_round_trip(session);
}

TEST_F(ShapesTest, ReferencesOhMyPiWroteLoadFromBlobsGitJpblobStored) {
  // A session oh-my-pi persisted (its references in place) loads through
  // git-jpblob's store once the same bytes are there: the names agree.
  const std::string png = test::random_bytes(2500, 13), url = "data:image/png;base64," + b64(test::random_bytes(50, 14));
  store.put(png);
  store.put(url);
  const std::string committed =
      R"({"images":[{"data":")" + url_of(png) + R"(","mimeType":"image/png"}],"x":{"type":"image_generation_call","result":")" +
      url_of(png) + R"("},"y":{"image_url":")" + url_of(url) + R"("}})" "\n";
  const std::string loaded = load(committed);
  EXPECT_EQ(loaded, R"({"images":[{"data":")" + b64(png) + R"(","mimeType":"image/png"}],"x":{"type":"image_generation_call","result":")" +
                        b64(png) + R"("},"y":{"image_url":")" + url + R"("}})" "\n");
  EXPECT_EQ(externalize(loaded), committed);
}

}  // namespace
}  // namespace jpblob
