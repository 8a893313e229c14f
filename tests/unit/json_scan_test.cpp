#include "core/format/json_scan.hpp"

#include <gtest/gtest.h>

#include "core/format/json_string.hpp"

namespace jpblob {
namespace {

bool valid(std::string_view text) {
  JsonError e;
  return parse_json(text, e).has_value();
}

TEST(JsonScan, AcceptsValidDocuments) {
  for (const char* s :
       {"null", "true", "false", "0", "-0", "1.5e-3", "-12E+4", "\"\"", "\"a\\u00e9\\n\\/\"",
        "[]", "{}", " [ 1 , {\"a\" : [ ] } ] ", "{\"\":0}", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
        "\"\\ud83d\\ude00\"", "\"\\ud800\""})
    EXPECT_TRUE(valid(s)) << s;
}

TEST(JsonScan, RefusesMalformedDocuments) {
  for (const char* s :
       {"", " ", "[", "]", "{", "[1,]", "[,1]", "{\"a\"}", "{\"a\":}", "{a:1}", "{\"a\":1,}",
        "01", "1.", ".5", "1e", "+1", "-", "tru", "nul", "[1 2]", "\"abc", "\"ab\\", "\"\\x\"",
        "\"\\u12\"", "\"\\u12g4\"", "\"a\tb\"", "\"a\nb\"", "[1]]", "[1] x", "{\"a\":1}}",
        "\x01"})
    EXPECT_FALSE(valid(s)) << s;
}

TEST(JsonScan, RefusesTruncationAtEveryPoint) {
  const std::string doc = R"([{"type":"tool_call_response","content":"aGVsbG8=","x":[1,2.5,null]}])";
  for (std::size_t n = 0; n < doc.size(); ++n) EXPECT_FALSE(valid(doc.substr(0, n))) << n;
  EXPECT_TRUE(valid(doc));
}

TEST(JsonScan, RefusesInvalidUtf8) {
  for (const char* s : {"\"\x80\"", "\"\xc0\xaf\"", "\"\xc3\"", "\"\xe0\x80\xaf\"",
                        "\"\xed\xa0\x80\"",  // an encoded surrogate
                        "\"\xf4\x90\x80\x80\"", "\"\xff\"", "\"\xe2\x82\""})
    EXPECT_FALSE(valid(s)) << s;
}

TEST(JsonScan, FindsSpecialBytesAtEveryOffsetOfLongStrings) {
  // The string scanner skips plain ASCII sixteen bytes at a time: a special
  // byte must be seen wherever it falls in or after a block.
  for (std::size_t at = 0; at < 50; ++at) {
    const std::string before(at, 'A'), after(40, 'b');
    auto doc = [&](const std::string& middle) { return "\"" + before + middle + after + "\""; };
    EXPECT_TRUE(valid(doc("\\n"))) << at;
    EXPECT_TRUE(valid(doc("\\\""))) << at;
    EXPECT_TRUE(valid(doc("\xc3\xa9"))) << at;
    EXPECT_FALSE(valid(doc("\t"))) << at;
    EXPECT_FALSE(valid(doc("\x7f\x80"))) << at;
    EXPECT_FALSE(valid(doc("\\q"))) << at;
    EXPECT_FALSE(valid("\"" + before)) << at;  // unterminated
    // A quote ends the string exactly where it stands.
    JsonError e;
    const std::string text = "[\"" + before + "\"," + "1]";
    auto tree = parse_json(text, e);
    ASSERT_TRUE(tree) << at;
    EXPECT_EQ(tree->span(tree->node(0).first_child), "\"" + before + "\"");
  }
}

TEST(JsonScan, KeepsByteSpans) {
  const std::string doc = "{ \"k\" : [1, \"two\"] ,\"z\":null}";
  JsonError e;
  auto t = parse_json(doc, e);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->span(t->root()), doc);
  const auto k = t->member(t->root(), "k");
  ASSERT_NE(k, kNoNode);
  EXPECT_EQ(t->span(k), "[1, \"two\"]");
  EXPECT_EQ(t->key_span(k), "\"k\"");
  const auto two = t->node(t->node(k).first_child).next_sibling;
  EXPECT_EQ(t->span(two), "\"two\"");
  EXPECT_EQ(t->string_value(two), "two");
  EXPECT_EQ(t->child_count(k), 2u);
  EXPECT_EQ(t->span(t->member(t->root(), "z")), "null");
  EXPECT_EQ(t->member(t->root(), "missing"), kNoNode);
}

TEST(JsonScan, MatchesEscapedKeys) {
  JsonError e;
  auto t = parse_json(R"({"\u0074ype":1})", e);
  ASSERT_TRUE(t);
  EXPECT_NE(t->member(t->root(), "type"), kNoNode);
}

TEST(JsonScan, HandlesHundredThousandLevelsWithoutRecursion) {
  const std::size_t depth = 100000;
  std::string doc(depth, '[');
  doc += std::string(depth, ']');
  EXPECT_TRUE(valid(doc));
  doc.pop_back();
  EXPECT_FALSE(valid(doc));
  std::string objects;
  for (std::size_t i = 0; i < depth; ++i) objects += "{\"a\":";
  objects += "1" + std::string(depth, '}');
  EXPECT_TRUE(valid(objects));
}

TEST(JsonScan, ReportsWhereItFailed) {
  JsonError e;
  EXPECT_FALSE(parse_json("[1, 2, x]", e));
  EXPECT_EQ(e.offset, 7u);
}

TEST(JsonString, DecodesEscapes) {
  EXPECT_EQ(decode_json_string(R"("a\"b\\c\/d\b\f\n\r\t")"), "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(decode_json_string(R"("\u00e9\u20ac\ud83d\ude00")"), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  EXPECT_EQ(decode_json_string(R"("\u0000")"), std::string(1, '\0'));
  EXPECT_EQ(decode_json_string(R"("\ud800")"), std::nullopt);
  EXPECT_EQ(decode_json_string(R"("\ude00x")"), std::nullopt);
  EXPECT_EQ(decode_json_string(R"("\ud800\u0041")"), std::nullopt);
}

TEST(JsonString, EncodesLikeSerdeJson) {
  EXPECT_EQ(encode_json_string("plain é €"), "\"plain é €\"");
  EXPECT_EQ(encode_json_string("q\"b\\/"), R"("q\"b\\/")");
  EXPECT_EQ(encode_json_string("\b\f\n\r\t"), R"("\b\f\n\r\t")");
  EXPECT_EQ(encode_json_string(std::string("\x00\x01\x1f\x7f", 4)), "\"\\u0000\\u0001\\u001f\x7f\"");
}

TEST(JsonString, EncodeThenDecodeIsIdentityOnUtf8) {
  std::string all;
  for (int c = 0; c < 0x80; ++c) all.push_back(static_cast<char>(c));
  all += "\xc3\xa9\xf0\x9f\x98\x80";
  const std::string token = encode_json_string(all);
  EXPECT_TRUE(valid(token));
  EXPECT_EQ(decode_json_string(token), all);
}

}  // namespace
}  // namespace jpblob
