// Claude Code's heavy parts beyond its image blocks (issue #47): the
// `toolUseResult.file.base64` copy of a read image, PDF `document` blocks,
// and tool-result text with its `toolUseResult.file.content` copy. Each
// moves to the store and loads back byte for byte.
#include <gtest/gtest.h>

#include "core/documents/session_jsonl.hpp"
#include "core/format/base64.hpp"
#include "core/format/json_string.hpp"
#include "session_store_fixture.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

std::string b64(const std::string& bytes) { return base64_encode(bytes, Base64Alphabet::Standard); }
std::string url_of(const std::string& bytes) { return "blob:sha256:" + Sha256::of(bytes).hex(); }

// A user line as Claude Code 2.0 writes it for a tool's result.
std::string tool_result_line(const std::string& content, const std::string& tool_use_result) {
  return R"({"parentUuid":"a1","isSidechain":false,"userType":"external","cwd":"/p","sessionId":"s","version":"2.0.28","type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":)" +
         content + R"(}]},"uuid":"u1","timestamp":"2026-11-20T10:00:00.000Z","toolUseResult":)" + tool_use_result +
         "}\n";
}

std::string long_text(std::size_t lines) {
  std::string text;
  for (std::size_t i = 1; i <= lines; ++i)
    text += "line " + std::to_string(i) + "\tint main() { return \"x\\\\y\"; } // é\n";
  return text;
}

class ClaudeTest : public test::SessionStoreTest {};

TEST_F(ClaudeTest, ReadImageBothCopiesShareOneBlob) {
  const std::string png = test::random_bytes(30 * 1024, 1);
  const std::string session = tool_result_line(
      R"([{"type":"image","source":{"type":"base64","data":")" + b64(png) + R"(","media_type":"image/png"}}])",
      R"({"type":"image","file":{"base64":")" + b64(png) +
          R"(","type":"image/png","originalSize":30720,"dimensions":{"originalWidth":10,"originalHeight":10}}})");
  TransformReport report;
  const std::string cleaned = externalize(session, 0, &report);
  EXPECT_EQ(report.replaced, 2u);
  EXPECT_EQ(report.blobs_written, 1u) << "same bytes, one blob";
  EXPECT_EQ(test::count_files(dir / ".jp/blobs"), 1u);
  EXPECT_NE(cleaned.find(R"("base64":")" + url_of(png) + "\""), std::string::npos);
  EXPECT_NE(cleaned.find(R"("data":")" + url_of(png) + "\""), std::string::npos);
  EXPECT_LT(cleaned.size(), 1000u);
  expect_round_trip(session);
}

TEST_F(ClaudeTest, PdfDocumentBlocksMoveWhereverTheyStand) {
  const std::string pdf = "%PDF-1.4\n" + test::random_bytes(4000, 2);
  const std::string doc =
      R"({"type":"document","source":{"type":"base64","media_type":"application/pdf","data":")" + b64(pdf) + R"("}})";
  const std::string session =
      tool_result_line("[" + doc + "]", R"({"type":"pdf","file":{"filePath":"/p/a.pdf","base64":")" + b64(pdf) +
                                            R"(","originalSize":4009}})") +
      R"({"type":"user","message":{"role":"user","content":[{"type":"text","text":"read this"},)" + doc +
      R"(]},"uuid":"u2"})" "\n" R"({"type":"user","attachment":)" + doc + "}\n";
  TransformReport report;
  const std::string cleaned = externalize(session, 0, &report);
  EXPECT_EQ(report.replaced, 4u);
  EXPECT_EQ(store.get(Sha256::of(pdf)).value(), pdf) << "the blob holds the decoded PDF";
  EXPECT_EQ(cleaned.find(b64(pdf)), std::string::npos);
  expect_round_trip(session);
}

TEST_F(ClaudeTest, ToolResultTextAndItsFileContentCopyMove) {
  const std::string file = long_text(200);
  std::string numbered;  // what the Read tool answers: the file with line numbers
  for (char c : file) numbered += c == '\n' ? std::string("\n     ") : std::string(1, c);
  const std::string session =
      tool_result_line(encode_json_string(numbered), R"({"type":"text","file":{"filePath":"/p/m.cpp","content":)" +
                                                         encode_json_string(file) + R"(,"numLines":200}})") +
      tool_result_line(R"([{"type":"text","text":)" + encode_json_string(file + "$ make\n") + "}]",
                       R"({"stdout":"ok","stderr":"","interrupted":false,"isImage":false})");
  TransformReport report;
  const std::string cleaned = externalize(session, 0, &report);
  EXPECT_EQ(report.replaced, 3u);
  EXPECT_EQ(store.get(Sha256::of(file)).value(), file) << "the blob holds the text, unescaped";
  EXPECT_NE(cleaned.find(R"("content":")" + url_of(file) + "\""), std::string::npos);
  EXPECT_NE(cleaned.find(R"("content":")" + url_of(numbered) + "\""), std::string::npos);
  EXPECT_NE(cleaned.find(R"("text":")" + url_of(file + "$ make\n") + "\""), std::string::npos);
  EXPECT_LT(cleaned.size(), session.size() / 10);
  expect_round_trip(session);
  EXPECT_EQ(session_images(cleaned, 0).referenced.size(), 3u);
}

TEST_F(ClaudeTest, BashOutputAndWrittenTextMoveWithTheirToolResults) {
  const std::string out = long_text(50), written = long_text(60);
  const std::string session =
      tool_result_line(encode_json_string(out), R"({"stdout":)" + encode_json_string(out) +
                                                    R"(,"stderr":"","interrupted":false,"isImage":false})") +
      tool_result_line(R"("File created successfully at: /p/w.c")",
                       R"({"type":"create","filePath":"/p/w.c","content":)" + encode_json_string(written) +
                           R"(,"structuredPatch":[]})");
  TransformReport report;
  const std::string cleaned = externalize(session, 0, &report);
  EXPECT_EQ(report.replaced, 3u);
  EXPECT_EQ(report.blobs_written, 2u) << "the output and its stdout copy are one blob";
  EXPECT_NE(cleaned.find(R"("stdout":")" + url_of(out) + "\""), std::string::npos);
  EXPECT_NE(cleaned.find(R"("content":")" + url_of(written) + "\""), std::string::npos);
  expect_round_trip(session);
}

TEST_F(ClaudeTest, ShortTextAndTextBelowMinSizeStayInline) {
  const std::string shorter = std::string(76, 'a');  // no longer than its reference
  const std::string text = long_text(20);
  const std::string session = tool_result_line(encode_json_string(shorter), R"({"stdout":"a"})") +
                              tool_result_line(encode_json_string(text), R"({"stdout":"b"})");
  TransformReport report;
  EXPECT_EQ(externalize(session, text.size() + 1, &report), session) << "jpblob.minSize bounds text";
  EXPECT_EQ(report.replaced, 0u);
  EXPECT_TRUE(session_images(session, text.size() + 1).inline_images.empty());
  const std::string cleaned = externalize(session, text.size(), &report);
  EXPECT_EQ(report.replaced, 1u) << "only the text longer than a reference, at minSize";
  EXPECT_NE(cleaned.find(encode_json_string(shorter)), std::string::npos);
  expect_round_trip(session, text.size());
}

TEST_F(ClaudeTest, TextSpelledOtherwiseThanCanonicallyStaysInline) {
  // "\/" and "\u0041" decode to text whose canonical spelling differs:
  // loading could not write these bytes back.
  const std::string text = long_text(10);
  const std::string odd = "\"\\/" + encode_json_string(text).substr(1);
  const std::string odd2 = "\"\\u0041" + encode_json_string(text).substr(1);
  for (const auto& token : {odd, odd2}) {
    const std::string session = tool_result_line(token, R"({"stdout":""})");
    EXPECT_EQ(externalize(session), session);
  }
}

TEST_F(ClaudeTest, AToolUseResultShapedAsAToolResultIsOneSite) {
  const std::string text = long_text(10);
  const std::string session =
      tool_result_line("\"x\"", R"({"file":{"type":"tool_result","content":)" + encode_json_string(text) + "}}");
  TransformReport report;
  externalize(session, 0, &report);
  EXPECT_EQ(report.replaced, 1u);
  expect_round_trip(session);
}

TEST_F(ClaudeTest, AHandWrittenReferenceToAShortBlobStaysAReference) {
  const std::string small = "short";
  store.put_all({small});
  const std::string session = tool_result_line("\"" + url_of(small) + "\"", R"({"stdout":""})");
  EXPECT_EQ(load(session), session) << "clean would not move it back, so smudge leaves it";
}

}  // namespace
}  // namespace jpblob
