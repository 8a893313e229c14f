// Literal objects (docs/FORMAT.md, "Literal objects"): reference-shaped
// user data read in JP's form comes back byte for byte.
#include <gtest/gtest.h>

#include "core/documents/document.hpp"
#include "core/documents/transform.hpp"
#include "core/workspace/committed_form.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

std::string ref(const std::string& content, const char* encoding) {
  std::string r = R"({"$blob":")" + Sha256::of(content).hex() + R"(","size":)" + std::to_string(content.size());
  if (encoding) r += std::string(R"(,"encoding":")") + encoding + "\"";
  return r + "}";
}
std::string lit(const std::string& value) { return R"({"$jpblob-literal":)" + value + "}"; }

class LiteralTest : public ::testing::Test {
 protected:
  test::TempDir dir;
  BlobStore store = BlobStore::for_storage(dir / ".jp", dir.path());

  std::string clean_of(std::string_view in, InputForm form = InputForm::WorkTree) {
    std::string out;
    CleanOptions options;
    options.form = form;
    clean(in, store, options, [&](std::string_view s) { out.append(s); });
    return out;
  }
  std::string smudge_of(std::string_view in) {
    std::string out;
    StoreBlobSource source(store);
    smudge(in, source, {}, [&](std::string_view s) { out.append(s); });
    return out;
  }
  // smudge(clean(x)) == x, clean(clean(x)) == clean(x) in the committed
  // form, clean(smudge(c)) == c in JP's; returns c.
  std::string round_trip(const std::string& x) {
    const std::string c = clean_of(x);
    EXPECT_EQ(smudge_of(c), x);
    EXPECT_EQ(clean_of(c, InputForm::Committed), c);
    EXPECT_EQ(clean_of(smudge_of(c)), c);
    return c;
  }
};

TEST_F(LiteralTest, EncodedReferenceShapedArgumentsAreTheUsersInJPsForm) {
  store.put("hello");
  const std::string present = ref("hello", "text");
  const std::string absent = ref("never stored", "base64");
  const std::string pretty = "{\n  \"size\" : 5,\n  \"$blob\": \"" + Sha256::of("hello").hex() +
                             "\", \"encoding\":\"text\"\n}";
  const std::string x = R"([{"type":"tool_call_request","arguments":{"a":)" + present + R"(,"deep":[{"b":)" +
                        absent + R"(}],"c":)" + pretty + "}}]";
  const std::string c = round_trip(x);
  EXPECT_EQ(c, R"([{"type":"tool_call_request","arguments":{"a":)" + lit(present) + R"(,"deep":[{"b":)" +
                   lit(absent) + R"(}],"c":)" + lit(pretty) + "}}]");
  // Nothing inside a literal is required; the blobs stay alive.
  const DocumentNeeds needs = document_needs(DocumentKind::Conversation, c, 0, InputForm::Committed);
  EXPECT_TRUE(needs.references.empty());
  EXPECT_EQ(needs.in_literals.size(), 3u);
  // Nor in the work tree's form, where they stand bare.
  const DocumentNeeds work_tree = document_needs(DocumentKind::Conversation, x, 0, InputForm::WorkTree);
  EXPECT_TRUE(work_tree.references.empty());
  EXPECT_EQ(work_tree.in_literals.size(), 3u);
  // Read as committed, they would be references.
  EXPECT_EQ(document_needs(DocumentKind::Conversation, x, 0, InputForm::Committed).references.size(), 3u);
}

TEST_F(LiteralTest, EveryPositionSmudgeReads) {
  const std::string r = ref("x", "text");
  const std::string x = R"([{"type":"tool_call_response","content":)" + r +
                        R"(},{"type":"chat_response","metadata":{"k":[1,{"s":)" + r +
                        R"(}]},"data":)" + r + R"(},{"type":"config_delta","metadata":{"k":)" + r + "}}]";
  const std::string c = round_trip(x);
  // Wrapped where smudge restores (content, metadata); elsewhere it is data already.
  EXPECT_EQ(c, R"([{"type":"tool_call_response","content":)" + lit(r) +
                   R"(},{"type":"chat_response","metadata":{"k":[1,{"s":)" + lit(r) + R"(}]},"data":)" + r +
                   R"(},{"type":"config_delta","metadata":{"k":)" + r + "}}]");
}

TEST_F(LiteralTest, TheEscapeEscapesItselfAtAnyDepth) {
  const std::string r = ref("x", "base64");
  for (const std::string& v : {lit(r), lit(lit(r)), lit(lit(lit(r)))}) {
    const std::string x = R"([{"type":"tool_call_request","arguments":{"a":)" + v + "}}]";
    EXPECT_EQ(round_trip(x), R"([{"type":"tool_call_request","arguments":{"a":)" + lit(v) + "}}]");
  }
}

TEST_F(LiteralTest, ALiteralSmudgeWouldNotUnwrapIsLeftWholeByBoth) {
  // Not clean's spelling, or not a value clean wraps: data, inside which
  // nothing is a payload.
  for (const std::string& v :
       {std::string(R"({"$jpblob-literal": )") + ref("x", "text") + "}", lit("\"aGVsbG8gd29ybGQ=\""),
        lit(ref("x", nullptr)), lit("{\"k\":\"aGVsbG8gd29ybGQ=\"}")}) {
    const std::string x = R"([{"type":"tool_call_request","arguments":{"a":)" + v + "}}]";
    EXPECT_EQ(round_trip(x), x);
    EXPECT_EQ(smudge_of(x), x);
  }
  EXPECT_EQ(test::count_files(dir / ".jp/blobs"), 0u);
}

TEST_F(LiteralTest, PlainReferencesAreJPsFormatAndStay) {
  const std::string x = R"([{"type":"tool_call_response","content":)" + ref("x", nullptr) + "}]";
  EXPECT_EQ(round_trip(x), x);
  // Content objects become plain references, and stay so.
  const std::string y = R"([{"type":"chat_request","content":{"text":"hi"}}])";
  const std::string c = clean_of(y);
  EXPECT_EQ(c, R"([{"type":"chat_request","content":)" + ref("hi", nullptr) + "}]");
  EXPECT_EQ(clean_of(c), c);
  EXPECT_EQ(smudge_of(c), c);
}

// Issue 44: clean never writes a plain reference inside the agent's data,
// nor anything in metadata whose strings are no payloads: every
// reference-shaped object there is the agent's, in both forms. It stays as
// written, keeps its blob alive, and requires none, whether or not it exists.
TEST_F(LiteralTest, TheAgentsOtherReferenceShapedObjectsAreNeverRequired) {
  store.put("hello");
  const std::string x = R"([{"type":"tool_call_request","arguments":{"gone":{"$blob": ")" +
                        Sha256::of("never stored").hex() + R"(", "size": 5},"here":)" + ref("hello", nullptr) +
                        R"(,"more":{"$blob":")" + Sha256::of("nor this").hex() + R"(","encryption":{}}},)" +
                        R"("metadata":{"m":[)" + ref("nor that", nullptr) + R"(]}},)" +
                        R"({"type":"compaction","metadata":{"k":)" + ref("not even this", "text") + "}}]";
  EXPECT_EQ(round_trip(x), x);
  for (const InputForm form : {InputForm::WorkTree, InputForm::Committed}) {
    const DocumentNeeds needs = document_needs(DocumentKind::Conversation, x, 0, form);
    EXPECT_TRUE(needs.references.empty());
    EXPECT_EQ(needs.in_literals.size(), 5u);
  }
  // Where RFD 066 puts content, a plain reference is JP's: required.
  const std::string y = R"([{"type":"tool_call_response","content":)" + ref("never stored", nullptr) + "}]";
  EXPECT_EQ(document_needs(DocumentKind::Conversation, y, 0, InputForm::WorkTree).references.size(), 1u);
  EXPECT_EQ(document_needs(DocumentKind::Conversation, y, 0, InputForm::Committed).references.size(), 1u);
}

TEST_F(LiteralTest, TheCommittedFormKeepsReferencesAndLiteralsAsTheyAre) {
  // An argument long enough for its reference to pay.
  std::string h;
  while (h.size() < 200) h += "hello ";
  store.put(h);
  const std::string spaced = "{\"$blob\": \"" + Sha256::of(h).hex() + "\", \"size\": " + std::to_string(h.size()) +
                             ", \"encoding\": \"text\"}";
  const std::string c = R"([{"type":"tool_call_request","arguments":{"a":)" + lit(ref(h, "text")) +
                        R"(,"b":)" + ref(h, "text") + R"(,"s":)" + spaced + "}}]";
  // Respelled canonical, as before; the literal and the reference stay.
  const std::string expected = R"([{"type":"tool_call_request","arguments":{"a":)" + lit(ref(h, "text")) +
                               R"(,"b":)" + ref(h, "text") + R"(,"s":)" + ref(h, "text") + "}}]";
  EXPECT_EQ(clean_of(c, InputForm::Committed), expected);
  EXPECT_EQ(clean_of(expected, InputForm::Committed), expected);
  EXPECT_EQ(smudge_of(expected), R"([{"type":"tool_call_request","arguments":{"a":)" + ref(h, "text") +
                                     R"(,"b":")" + h + R"(","s":")" + h + R"("}}])");
  EXPECT_EQ(clean_of(smudge_of(expected)), expected);
}

TEST(CommittedFormRecord, NotesAreMergedIntoTheFile) {
  test::TempDir dir;
  CommittedFormRecord a(dir.path()), b(dir.path());
  EXPECT_FALSE(a.contains("x/events.json"));
  a.note("x/events.json", true);
  a.note("with\nnewline", true);
  EXPECT_TRUE(a.contains("x/events.json"));
  EXPECT_FALSE(a.contains("with\nnewline"));
  b.note("y/events.json", true);
  a.flush();
  b.flush();  // read before a flushed: merges, never overwrites
  CommittedFormRecord c(dir.path());
  EXPECT_TRUE(c.contains("x/events.json"));
  EXPECT_TRUE(c.contains("y/events.json"));
  c.note("x/events.json", false);
  c.flush();
  EXPECT_EQ(test::read_text(dir / "jpblob/committed-form"), "y/events.json\n");
}

}  // namespace
}  // namespace jpblob
