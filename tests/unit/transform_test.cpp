#include "core/documents/transform.hpp"
#include "core/documents/document.hpp"

#include <gtest/gtest.h>

#include "core/format/base64.hpp"
#include "core/base/error.hpp"
#include "core/format/gzip.hpp"
#include "core/format/json_string.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

struct Outcome {
  std::string out;
  TransformReport report;
  bool sink_called = false;
};

class TransformTest : public ::testing::Test {
 protected:
  test::TempDir dir;
  BlobStore store = BlobStore::for_storage(dir / ".jp", dir.path());
  InputForm form = InputForm::WorkTree;  // of what do_clean reads
  Outcome committed_clean(std::string_view in) {
    const InputForm was = form;
    form = InputForm::Committed;
    Outcome r = do_clean(in);
    form = was;
    return r;
  }

  Outcome do_clean(std::string_view in, CleanOptions opts = {}) {
    opts.form = form;
    Outcome r;
    r.report = clean(in, store, opts, [&](std::string_view s) {
      r.sink_called = true;
      r.out.append(s);
    });
    return r;
  }
  Outcome do_smudge(std::string_view in) {
    Outcome r;
    StoreBlobSource source(store);
    SmudgeOptions opts;
    opts.path = ".jp/conversations/1-x/events.json";
    r.report = smudge(in, source, opts, [&](std::string_view s) {
      r.sink_called = true;
      r.out.append(s);
    });
    return r;
  }
  std::size_t blob_count() { return test::count_files(dir / ".jp/blobs"); }
  // Round trip that also checks both idempotence invariants.
  std::string round_trip(const std::string& in) {
    const std::string c = do_clean(in).out;
    EXPECT_EQ(committed_clean(c).out, c);
    const std::string s = do_smudge(c).out;
    EXPECT_EQ(s, in);
    EXPECT_EQ(do_clean(s).out, c);
    return c;
  }
};

std::string ref(const std::string& content, const char* encoding) {
  std::string r = R"({"$blob":")" + Sha256::of(content).hex() + R"(","size":)" +
                  std::to_string(content.size());
  if (encoding) r += std::string(R"(,"encoding":")") + encoding + "\"";
  return r + "}";
}

TEST_F(TransformTest, ExternalizesBase64ToolOutput) {
  const std::string in =
      "[\n  {\n    \"type\": \"tool_call_response\",\n    \"id\": \"t\",\n    \"content\": \"" +
      base64_encode("cargo check ok\n", Base64Alphabet::Standard) +
      "\",\n    \"is_error\": false\n  }\n]\n";
  const std::string c = round_trip(in);
  EXPECT_EQ(c, "[\n  {\n    \"type\": \"tool_call_response\",\n    \"id\": \"t\",\n    \"content\": " +
                   ref("cargo check ok\n", "base64") + ",\n    \"is_error\": false\n  }\n]\n");
  EXPECT_EQ(store.get(Sha256::of("cargo check ok\n")), "cargo check ok\n");
}

TEST_F(TransformTest, PreservesEveryByteOutsideThePayloads) {
  // Odd whitespace, CRLF, key order, number spellings, escapes in
  // non-payload text, no trailing newline.
  const std::string bytes(200, 'a');
  const std::string in =
      "[{\"z\":1.50e+2,\r\n\"type\" :\t\"tool_call_request\",\"arguments\":{\"p\":\"" +
      base64_encode(bytes, Base64Alphabet::Standard) +
      "\"},\"n\":-0.0,\"t\":\"\\u00e9\\/\"}  ,{\"type\":\"chat_request\",\"content\":\"\\u0041\"}]";
  const std::string c = round_trip(in);
  EXPECT_EQ(c, "[{\"z\":1.50e+2,\r\n\"type\" :\t\"tool_call_request\",\"arguments\":{\"p\":" +
                   ref(bytes, "base64") +
                   "},\"n\":-0.0,\"t\":\"\\u00e9\\/\"}  ,{\"type\":\"chat_request\",\"content\":\"\\u0041\"}]");
}

std::string times(std::string_view s, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) out += s;
  return out;
}

TEST_F(TransformTest, PicksTheFirstEncodingThatRestoresExactly) {
  // Argument strings long enough for their references to pay.
  const std::string url = base64_encode(times("\xfb\xff\xfe", 40), Base64Alphabet::UrlSafe);  // "-__-"…
  const std::string in = R"([{"type":"tool_call_request","arguments":{"a":")" +
                         base64_encode(times("hi", 60), Base64Alphabet::Standard) + R"(","b":")" + url +
                         R"(","c":")" + times("hello world", 12) + R"(","d":")" + times(R"(tab\there)", 15) +
                         R"(",)"
                         R"("e":"\u00e9","f":"a\/b","g":"\ud800","h":")" + times(R"(x\u001fy)", 20) + R"("}}])";
  const std::string c = round_trip(in);
  EXPECT_NE(c.find(ref(times("hi", 60), "base64")), std::string::npos);
  EXPECT_NE(c.find(ref(times("\xfb\xff\xfe", 40), "base64url")), std::string::npos);
  EXPECT_NE(c.find(ref(times("hello world", 12), "text")), std::string::npos);
  EXPECT_NE(c.find(ref(times("tab\there", 15), "text")), std::string::npos);
  EXPECT_NE(c.find(ref(times("x\x1fy", 20), "text")), std::string::npos);
  // Non-canonical escapes and lone surrogates cannot be restored: inline.
  EXPECT_NE(c.find(R"("e":"\u00e9")"), std::string::npos);
  EXPECT_NE(c.find(R"("f":"a\/b")"), std::string::npos);
  EXPECT_NE(c.find(R"("g":"\ud800")"), std::string::npos);
}

TEST_F(TransformTest, ArgumentAndMetadataStringsBecomeBlobsOnlyWhereTheReferenceIsShorter) {
  // A text reference of a size under 1000: {"$blob":"<64>","size":NNN,"encoding":"text"}.
  const std::size_t ref_length = ref(std::string(100, 'x'), "text").size();
  const std::string even(ref_length - 2, '.');    // token as long as its reference: stays
  const std::string longer(ref_length - 1, ':');  // one byte longer: a blob (neither is base64)
  for (const char* shape : {R"({"type":"tool_call_request","arguments":{"k":"%"}})",
                            R"({"type":"chat_request","content":"q","metadata":{"deep":["%"]}})"}) {
    const std::string tmpl(shape);
    const auto fill = [&](const std::string& v) {
      std::string e = tmpl;
      e.replace(e.find('%'), 1, v);
      return e;
    };
    const std::string in = "[" + fill(even) + "," + fill(longer) + "," + fill("/src/main.rs") + "]";
    const std::string c = round_trip(in);
    EXPECT_NE(c.find('"' + even + '"'), std::string::npos) << shape;
    EXPECT_NE(c.find("\"/src/main.rs\""), std::string::npos) << shape;
    EXPECT_EQ(c.find(longer), std::string::npos) << shape;
    EXPECT_NE(c.find(ref(longer, "text")), std::string::npos) << shape;
    // What the hook counts as payloads to store is what clean stored.
    const DocumentNeeds needs = document_needs(DocumentKind::Conversation, in, 0, InputForm::WorkTree);
    EXPECT_EQ(needs.inline_payloads.size(), 1u) << shape;
  }
  // A tool's output is content: a blob however short.
  const std::string c = round_trip(R"([{"type":"tool_call_response","content":"ok"}])");
  EXPECT_NE(c.find(ref("ok", "text")), std::string::npos);
  // What an earlier version committed (every argument a blob) still
  // restores; cleaning it again brings the short string back inline, once.
  store.put("/src/main.rs");
  const std::string old = R"([{"type":"tool_call_request","arguments":{"k":)" + ref("/src/main.rs", "text") + "}}]";
  const std::string restored = do_smudge(old).out;
  EXPECT_EQ(restored, R"([{"type":"tool_call_request","arguments":{"k":"/src/main.rs"}}])");
  EXPECT_EQ(do_clean(restored).out, restored);
  EXPECT_EQ(committed_clean(old).out, old) << "the committed form is left as it is";
}

TEST_F(TransformTest, InvalidOrNonCanonicalBase64FallsBackToTextOrStays) {
  const std::string in = R"([{"type":"tool_call_response","content":"Zh=="},)"
                         R"({"type":"tool_call_response","content":"Zg"},)"
                         R"({"type":"tool_call_response","content":"not base64!"}])";
  const std::string c = round_trip(in);
  EXPECT_NE(c.find(ref("Zh==", "text")), std::string::npos);
  EXPECT_NE(c.find(ref("Zg", "text")), std::string::npos);
  EXPECT_NE(c.find(ref("not base64!", "text")), std::string::npos);
}

TEST_F(TransformTest, SameContentDeduplicatesAcrossEncodings) {
  const std::string in = R"([{"type":"tool_call_response","content":"aGVsbG8gd29ybGQ="},)"
                         R"({"type":"tool_call_request","arguments":{"x":"hello world"}}])";
  round_trip(in);
  EXPECT_EQ(blob_count(), 1u);
}

TEST_F(TransformTest, InlineContentObjectsBecomeRfdReferences) {
  const std::string in = R"([{"type":"chat_request","resources":[{"content":{"text":"fn main() {}"}},)"
                         R"({"content":{"blob":"AAEC"}}]}])";
  const std::string c = do_clean(in).out;
  EXPECT_EQ(c, R"([{"type":"chat_request","resources":[{"content":)" + ref("fn main() {}", nullptr) +
                   R"(},{"content":)" + ref(std::string("\0\1\2", 3), nullptr) + "}]}]");
  EXPECT_EQ(committed_clean(c).out, c);
  EXPECT_EQ(do_clean(c).out, c) << "plain references are JP's format in either form";
  // Smudge leaves RFD 066 references alone: JP reads them itself.
  EXPECT_EQ(do_smudge(c).out, c);
}

// Issue 44: inside arguments and metadata RFD 066's content shapes are
// the agent's data. Their strings are argument strings: moved out only
// where the reference pays, with their encoding, and given back exactly.
TEST_F(TransformTest, ContentShapesInArgumentsAndMetadataComeBackAsWritten) {
  std::string text;
  while (text.size() < 300) text += "fn main() {}\\n";
  const std::string bytes = base64_encode(std::string(200, '\x01'), Base64Alphabet::Standard);
  const std::string in = R"([{"type":"tool_call_request","arguments":{"content": {"text": ")" + text +
                         R"("},"short":{"content":{"text":"ls"}},"raw":{"blob":")" + bytes +
                         R"("}},"metadata":{"content":{"text":"a"}}},)"
                         R"({"type":"config_delta","metadata":{"content":{"text":"kept"}}}])";
  const std::string c = round_trip(in);
  EXPECT_EQ(c, R"([{"type":"tool_call_request","arguments":{"content": {"text": )" +
                   ref(*decode_json_string("\"" + text + "\""), "text") +
                   R"(},"short":{"content":{"text":"ls"}},"raw":{"blob":)" + ref(std::string(200, '\x01'), "base64") +
                   R"(}},"metadata":{"content":{"text":"a"}}},)"
                   R"({"type":"config_delta","metadata":{"content":{"text":"kept"}}}])");
  EXPECT_EQ(blob_count(), 2u);
}

TEST_F(TransformTest, MinSizeKeepsSmallPayloadsInline) {
  const std::string in = R"([{"type":"tool_call_response","content":"aGk="},)"
                         R"({"type":"tool_call_response","content":"aGVsbG8gd29ybGQ="}])";
  CleanOptions opts;
  opts.min_size = 5;
  const std::string c = do_clean(in, opts).out;
  EXPECT_NE(c.find("\"aGk=\""), std::string::npos);
  EXPECT_NE(c.find(ref("hello world", "base64")), std::string::npos);
}

TEST_F(TransformTest, ValuesThatOnlyLookLikeReferencesAreData) {
  const std::string in = R"([{"type":"chat_response","data":{"$blob":"../../etc/passwd","size":1,"encoding":"text"}},)"
                         R"({"type":"x","data":{"$blob":")" + std::string(64, 'A') + R"(","size":1,"encoding":"text"}}])";
  EXPECT_EQ(do_smudge(in).out, in);
  EXPECT_EQ(do_clean(in).out, in);
  EXPECT_EQ(blob_count(), 0u);
}

// Found by fuzz_clean: smudge may restore only what clean would turn back
// into the very same reference, or clean(smudge(c)) != c.
TEST_F(TransformTest, SmudgeRestoresOnlyWhatCleanWouldRecreate) {
  store.put("hello");
  store.put("aGk=");
  store.put("\xff\xfe");
  const std::vector<std::string> committed = {
      // An encoded reference where no payload stands.
      R"([{"type":"tool_call_response","onten|":)" + ref("hello", "text") + "}]",
      R"([{"type":"config_delta","metadata":{"k":)" + ref("hello", "text") + "}}]",
      // "text" for bytes clean would read as base64.
      R"([{"type":"tool_call_response","content":)" + ref("aGk=", "text") + "}]",
      // "text" for bytes that are not UTF-8.
      R"([{"type":"tool_call_response","content":)" + ref("\xff\xfe", "text") + "}]",
  };
  for (const auto& c : committed) {
    EXPECT_EQ(do_smudge(c).out, c);
    EXPECT_EQ(committed_clean(do_smudge(c).out).out, c);
    // In JP's form such a reference is the user's (clean never writes
    // one): kept as a literal, and given back as it was.
    EXPECT_EQ(do_smudge(do_clean(c).out).out, c);
  }
  // The same blobs at payload positions with the encodings clean picks are
  // restored.
  const std::string good = R"([{"type":"tool_call_response","content":)" + ref("aGk=", "text") +
                           R"(},{"type":"tool_call_request","arguments":{"a":)" + ref("hello", "text") + "}}]";
  EXPECT_EQ(do_smudge(good).out,
            R"([{"type":"tool_call_response","content":)" + ref("aGk=", "text") +
                R"(},{"type":"tool_call_request","arguments":{"a":"hello"}}])");
}

// A merge resolved by a JSON tool respells references; clean puts them back
// in the one form it writes, so the file does not stay dirty.
TEST_F(TransformTest, CleanRewritesRespelledReferencesToTheCanonicalForm) {
  const std::string canonical = ref("hello", "base64");
  const std::string spaced = "{\"$blob\": \"" + Sha256::of("hello").hex() +
                             "\", \"size\": 5, \"encoding\": \"base64\"}";
  const std::string in = R"([{"type":"tool_call_response","content":)" + spaced +
                         R"(},{"type":"chat_response","data":)" + spaced + "}]";
  const std::string c = committed_clean(in).out;
  // At a payload position it is respelled; elsewhere it is data.
  EXPECT_EQ(c, R"([{"type":"tool_call_response","content":)" + canonical +
                   R"(},{"type":"chat_response","data":)" + spaced + "}]");
  EXPECT_EQ(committed_clean(c).out, c);
  // In JP's form it is the user's object, wrapped byte for byte.
  EXPECT_EQ(do_clean(in).out, R"([{"type":"tool_call_response","content":{"$jpblob-literal":)" + spaced +
                                  R"(}},{"type":"chat_response","data":)" + spaced + "}]");
}

TEST_F(TransformTest, NotAConversationPassesThroughWithOneWarning) {
  const std::vector<std::string> inputs = {
      "",
      "not json",
      R"([{"type":"tool_call_response","content":"aGVsbG8=")",  // truncated
      R"([{"type":"tool_call_response","content":"aGVsb)",     // truncated mid-string
      R"({"type":"tool_call_response","content":"aGk="})",     // not an array
      R"([{"type":"tool_call_response","content":"aGk="}, 5])",
      "[{\"type\":\"tool_call_response\",\"content\":\"aGk=\"},{\"c\":\"\xff\xfe\"}]",  // bad UTF-8
      "\xef\xbb\xbf[]",  // a byte order mark is not JSON
  };
  for (const auto& in : inputs) {
    for (bool cleaning : {true, false}) {
      Outcome r = cleaning ? do_clean(in) : do_smudge(in);
      EXPECT_EQ(r.out, in);
      EXPECT_TRUE(r.report.passthrough);
      ASSERT_EQ(r.report.warnings.size(), 1u);
      EXPECT_NE(r.report.warnings[0].find("passing it through unchanged"), std::string::npos);
      EXPECT_EQ(r.report.warnings[0].find('\n'), std::string::npos) << "one line";
    }
  }
  EXPECT_EQ(blob_count(), 0u);  // nothing stored for input that was not understood
}

TEST_F(TransformTest, HundredThousandLevelsDeep) {
  const std::size_t depth = 100000;
  const std::string bytes = times("hi", 60);
  const std::string deep = std::string(depth, '[') + "\"" + base64_encode(bytes, Base64Alphabet::Standard) + "\"" +
                           std::string(depth, ']');
  const std::string in = R"([{"type":"tool_call_request","arguments":{"x":)" + deep + "}}]";
  const std::string c = round_trip(in);
  EXPECT_NE(c.find(ref(bytes, "base64")), std::string::npos);
  // And an unterminated one passes through.
  const std::string broken = in.substr(0, in.size() - 10);
  EXPECT_EQ(do_clean(broken).out, broken);
}

TEST_F(TransformTest, TwoHundredMegabyteString) {
  std::string payload;
  payload.reserve(150u << 20);
  while (payload.size() < (150u << 20)) payload += "a long tool output line that repeats\n";
  const std::string b64 = base64_encode(payload, Base64Alphabet::Standard);  // ~200 MB
  ASSERT_GE(b64.size(), 200u << 20);
  const std::string in = R"([{"type":"tool_call_response","content":")" + b64 + "\"}]";
  const std::string c = do_clean(in).out;
  EXPECT_EQ(c, "[{\"type\":\"tool_call_response\",\"content\":" + ref(payload, "base64") + "}]");
  EXPECT_EQ(do_smudge(c).out, in);
  // The same string, unterminated: passed through whole.
  const std::string broken = in.substr(0, in.size() - 3);
  Outcome r = do_clean(broken);
  EXPECT_TRUE(r.report.passthrough);
  EXPECT_EQ(r.out.size(), broken.size());
}

TEST_F(TransformTest, SmudgeOfAMissingBlobNamesDigestAndConversation) {
  const std::string c = "[{\"type\":\"tool_call_response\",\"content\":" + ref("gone", "text") + "}]";
  Outcome r;
  try {
    r = do_smudge(c);
    FAIL() << "smudge succeeded without the blob";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(Sha256::of("gone").hex()), std::string::npos) << msg;
    EXPECT_NE(msg.find(".jp/conversations/1-x/events.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find("missing"), std::string::npos) << msg;
  }
}

TEST_F(TransformTest, SmudgeRefusesCorruptBlobsAndWrongSizes) {
  const std::string c = do_clean(R"([{"type":"tool_call_response","content":"aGVsbG8="}])").out;
  // A size that disagrees with the blob.
  std::string wrong = c;
  wrong.replace(wrong.find("\"size\":5"), 8, "\"size\":4");
  EXPECT_THROW(do_smudge(wrong), Error);
  // A blob whose bytes were flipped.
  const fs::path file = store.path_of(Sha256::of("hello"));
  std::string gz = test::read_text(file);
  gz[gz.size() - 5] ^= 1;
  test::write_text(file, gz);
  try {
    do_smudge(c);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(file.string()), std::string::npos) << e.what();
  }
  // A blob whose content does not match its name.
  test::write_text(file, gzip_compress("HELLO"));
  EXPECT_THROW(do_smudge(c), Error);
}

TEST_F(TransformTest, CleanOnAFullDiskWritesNoOutput) {
  Syscalls s = syscalls();
  s.write = [](int, const void*, size_t) -> ssize_t {
    errno = ENOSPC;
    return -1;
  };
  ScopedSyscalls fault(s);
  bool called = false;
  EXPECT_THROW(clean(R"([{"type":"tool_call_response","content":"aGk="}])", store, {},
                     [&](std::string_view) { called = true; }),
               Error);
  EXPECT_FALSE(called);
}

TEST_F(TransformTest, EmptyConversationAndNoPayloads) {
  for (const std::string in : {"[]", "[]\n", " [ ] ", R"([{"type":"turn_start"}])"}) {
    Outcome r = do_clean(in);
    EXPECT_EQ(r.out, in);
    EXPECT_FALSE(r.report.passthrough);
    EXPECT_TRUE(r.report.warnings.empty());
  }
}

}  // namespace
}  // namespace jpblob
