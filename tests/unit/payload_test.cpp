#include "core/format/payload.hpp"

#include <gtest/gtest.h>

#include <set>

namespace jpblob {
namespace {

// The payload spans of a one-event conversation, in order.
std::vector<std::string> sites_of(const std::string& event) {
  const std::string doc = "[" + event + "]";
  std::vector<std::string> spans;
  auto scan = scan_events(doc, [&](const JsonTree& t) {
    std::vector<PayloadSite> sites;
    find_payload_sites(t, sites);
    for (auto& s : sites)
      spans.push_back((s.kind == SiteKind::ContentObject ? "obj:"
                       : s.kind == SiteKind::Reference   ? "ref:"
                       : s.kind == SiteKind::Literal     ? "lit:"
                       : s.kind == SiteKind::UserObject  ? "user:"
                                                         : "") +
                      std::string(t.span(s.node)));
  });
  EXPECT_EQ(scan.shape, DocumentShape::Conversation) << scan.problem;
  return spans;
}

using V = std::vector<std::string>;
const std::string kHex(64, 'a');

TEST(Payload, ToolCallResponseContentString) {
  EXPECT_EQ(sites_of(R"({"type":"tool_call_response","id":"t1","content":"aGk=","is_error":false})"),
            V{"\"aGk=\""});
  // Not other strings of the event, and only when content is a string.
  EXPECT_EQ(sites_of(R"({"type":"tool_call_response","id":"x","content":5})"), V{});
}

TEST(Payload, ToolCallRequestArgumentsAtAnyDepthButNotKeys) {
  EXPECT_EQ(sites_of(R"({"type":"tool_call_request","id":"i","name":"n","arguments":)"
                     R"({"path":"cA==","opts":{"deep":["a",1,"b"]},"n":3}})"),
            (V{"\"cA==\"", "\"a\"", "\"b\""}));
}

TEST(Payload, MetadataEverywhereExceptConfigDeltaAndCompaction) {
  EXPECT_EQ(sites_of(R"({"type":"chat_response","reasoning":"r","metadata":{"sig":"c2ln"}})"),
            V{"\"c2ln\""});
  EXPECT_EQ(sites_of(R"({"type":"config_delta","metadata":{"sig":"c2ln"}})"), V{});
  EXPECT_EQ(sites_of(R"({"type":"compaction","metadata":{"sig":"c2ln"}})"), V{});
  EXPECT_EQ(sites_of(R"({"type":"some_future_event","metadata":{"k":["x"]}})"), V{"\"x\""});
}

TEST(Payload, ConversationTextStaysInline) {
  EXPECT_EQ(sites_of(R"({"type":"chat_request","content":"hello"})"), V{});
  EXPECT_EQ(sites_of(R"({"type":"chat_response","message":"hi","reasoning":"hm"})"), V{});
  EXPECT_EQ(sites_of(R"({"type":"inquiry_request","id":"q","question":{"text":"why"}})"), V{});
  EXPECT_EQ(sites_of(R"({"type":"tool_call_request","arguments":{},"name":"cmF3"})"), V{});
}

TEST(Payload, InlineContentObjectsAtContentPositions) {
  EXPECT_EQ(sites_of(R"({"type":"chat_request","resources":[{"uri":"f","content":{"text":"fn main"}}]})"),
            V{"obj:{\"text\":\"fn main\"}"});
  EXPECT_EQ(sites_of(R"({"type":"tool_call_response","content":[{"type":"text","content":{"blob":"AA=="}}]})"),
            V{"obj:{\"blob\":\"AA==\"}"});
  // Not when there is more than one key, or the value is not a string.
  EXPECT_EQ(sites_of(R"({"type":"x","content":{"text":"a","mime":"b"}})"), V{});
  EXPECT_EQ(sites_of(R"({"type":"x","content":{"text":1}})"), V{});
  EXPECT_EQ(sites_of(R"({"type":"x","body":{"text":"a"}})"), V{});
}

// Issue 44: inside the agent's data (a tool call's arguments, any event's
// metadata) RFD 066's shapes are the agent's: the string in one is a
// payload string like any other there, and in metadata whose strings are
// no payloads nothing is a site.
TEST(Payload, ContentShapesInsideTheAgentsDataAreItsOwn) {
  EXPECT_EQ(sites_of(R"({"type":"tool_call_request","arguments":{"content":{"text":"fn main"},"b":{"blob":"AA=="}}})"),
            (V{"\"fn main\"", "\"AA==\""}));
  EXPECT_EQ(sites_of(R"({"type":"tool_call_request","arguments":{"files":[{"content":{"blob":"AA=="}}]}})"),
            V{"\"AA==\""});
  EXPECT_EQ(sites_of(R"({"type":"chat_response","metadata":{"content":{"text":"t"}}})"), V{"\"t\""});
  EXPECT_EQ(sites_of(R"({"type":"config_delta","metadata":{"content":{"text":"t"}}})"), V{});
  EXPECT_EQ(sites_of(R"({"type":"compaction","metadata":{"r":[{"content":{"blob":"AA=="}}]}})"), V{});
  // The rest of such an event is no agent's data: a content position.
  EXPECT_EQ(sites_of(R"({"type":"tool_call_request","arguments":{},"resource":{"content":{"text":"t"}}})"),
            V{"obj:{\"text\":\"t\"}"});
}

// Issue 44: clean writes only encoded references inside the agent's data,
// and only where its strings are payloads; every other object there that
// names a blob is the agent's (UserObject), whatever it names.
TEST(Payload, TheAgentsReferenceShapedObjectsAreUserObjects) {
  const std::string plain = R"({"$blob":")" + kHex + R"(","size":5})";
  const std::string spaced = R"({ "size": 5, "$blob": ")" + kHex + R"(" })";
  const std::string encoded = R"({"$blob":")" + kHex + R"(","size":5,"encoding":"text"})";
  EXPECT_EQ(sites_of(R"({"type":"tool_call_request","arguments":{"a":)" + plain + R"(,"b":[)" + spaced + R"(]}})"),
            (V{"user:" + plain, "user:" + spaced}));
  EXPECT_EQ(sites_of(R"({"type":"chat_response","metadata":{"k":)" + plain + "}}"), V{"user:" + plain});
  EXPECT_EQ(sites_of(R"({"type":"chat_response","metadata":)" + plain + "}"), V{"user:" + plain});
  EXPECT_EQ(sites_of(R"({"type":"config_delta","metadata":{"k":)" + plain + "}}"), V{"user:" + plain});
  // Encoded: clean's where strings are payloads, the agent's elsewhere.
  EXPECT_EQ(sites_of(R"({"type":"tool_call_request","arguments":{"a":)" + encoded + "}}"), V{"ref:" + encoded});
  EXPECT_EQ(sites_of(R"({"type":"compaction","metadata":{"k":)" + encoded + "}}"), V{"user:" + encoded});
  // A literal in metadata whose strings are no payloads is data; what it
  // holds is the agent's.
  EXPECT_EQ(sites_of(R"({"type":"config_delta","metadata":{"k":{"$jpblob-literal":)" + encoded + "}}}"),
            V{"user:" + encoded});
  // Where RFD 066 puts content, a plain reference is JP's own: required.
  EXPECT_EQ(sites_of(R"({"type":"tool_call_response","content":)" + plain + "}"), V{"ref:" + plain});
  EXPECT_EQ(sites_of(R"({"type":"chat_request","resources":[{"content":)" + plain + "}]}"), V{});
}

TEST(Payload, TheAgentsObjectsKeepTheirBlobsAliveButRequireNone) {
  const std::string plain = R"({"$blob":")" + kHex + R"(","size":5})";
  const std::string other(64, 'b');
  const std::string in_content = R"({"$blob":")" + other + R"(","size":5})";
  const std::string doc = R"([{"type":"tool_call_request","arguments":{"a":)" + plain +
                          R"(,"e":{"$blob":")" + kHex + R"(","encryption":{}}},"metadata":{"m":)" + plain +
                          R"(}},{"type":"tool_call_response","content":[{"type":"text","content":)" + in_content +
                          "}]}]";
  std::vector<FoundReference> found;
  std::vector<Digest> named, users_name;
  auto scan = scan_events(doc, [&](const JsonTree& t) {
    std::vector<PayloadSite> sites;
    find_payload_sites(t, sites);
    const std::vector<std::uint32_t> users = user_data_sites(sites);
    find_references(t, found, &named, &users, &users_name);
  });
  EXPECT_EQ(scan.shape, DocumentShape::Conversation);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].ref.digest.hex(), other);
  EXPECT_TRUE(named.empty());
  EXPECT_EQ(users_name.size(), 3u);
  for (const Digest& d : users_name) EXPECT_EQ(d.hex(), kHex);
}

TEST(Payload, ReferencesAtPayloadPositionsAreReportedNotDescendedInto) {
  const std::string ref = R"({"$blob":")" + kHex + R"(","size":3,"encoding":"base64"})";
  EXPECT_EQ(sites_of(R"({"type":"tool_call_request","arguments":{"a":)" + ref + R"(,"b":"eA=="}})"),
            (V{"ref:" + ref, "\"eA==\""}));
  EXPECT_EQ(sites_of(R"({"type":"tool_call_response","content":)" + ref + "}"), V{"ref:" + ref});
  // Elsewhere a reference is not a site at all, but in metadata, the
  // agent's data, it is the agent's own.
  EXPECT_EQ(sites_of(R"({"type":"chat_response","data":)" + ref + "}"), V{});
  EXPECT_EQ(sites_of(R"({"type":"config_delta","metadata":)" + ref + "}"), V{"user:" + ref});
  EXPECT_EQ(sites_of(R"({"type":"tool_call_response","other":)" + ref + "}"), V{});
}

TEST(Payload, FindsReferencesAnywhere) {
  const std::string ref = R"({"$blob":")" + kHex + R"(","size":3})";
  const std::string doc = R"([{"type":"a","x":[)" + ref + R"(,{"y":)" + ref + R"(}]},{"type":"b"}])";
  std::vector<FoundReference> found;
  auto scan = scan_events(doc, [&](const JsonTree& t) { find_references(t, found); });
  EXPECT_EQ(scan.shape, DocumentShape::Conversation);
  EXPECT_EQ(found.size(), 2u);
}

// Conservative liveness: an object naming a blob under "$blob" with more
// keys than a reference (JP's draft of encrypted references) keeps its
// blob, at any depth, whatever the digest's case; and no site lies inside it.
TEST(Payload, ObjectsNamingABlobAreFoundAndLeftAlone) {
  const std::string upper(64, 'B');
  const std::string named = R"({"$blob":")" + kHex + R"(","size":3,"encryption":{"scheme":"age","recipients":["r"]}})";
  const std::string escaped = R"({"$blob":")" + upper + R"(","other":1})";
  const std::string doc = R"([{"type":"tool_call_request","arguments":{"a":)" + named + R"(,"b":[)" + escaped +
                          R"(],"c":{"$blob":"short","size":1},"d":{"$blob":7}}}])";
  std::vector<FoundReference> found;
  std::vector<Digest> digests;
  auto scan = scan_events(doc, [&](const JsonTree& t) { find_references(t, found, &digests); });
  EXPECT_EQ(scan.shape, DocumentShape::Conversation);
  EXPECT_TRUE(found.empty());
  std::set<std::string> hex;
  for (const Digest& d : digests) hex.insert(d.hex());
  EXPECT_EQ(hex, (std::set<std::string>{kHex, std::string(64, 'b')}));
  // Inside arguments every string is a payload, but none inside the two:
  // the agent's own objects.
  EXPECT_EQ(sites_of(R"({"type":"tool_call_request","arguments":{"a":)" + named + R"(,"b":)" + escaped +
                     R"(,"c":"x"}})"),
            (V{"user:" + named, "user:" + escaped, "\"x\""}));
  // Where no string is a payload, no site either.
  EXPECT_EQ(sites_of(R"({"type":"tool_call_response","content":[)" + named + "]}"), V{});
}

TEST(Payload, ShapesOfDocuments) {
  auto shape = [](const std::string& doc) { return scan_events(doc, [](const JsonTree&) {}); };
  EXPECT_EQ(shape("[]").shape, DocumentShape::Conversation);
  EXPECT_EQ(shape(" [ {} , {\"type\":1} ]\n").shape, DocumentShape::Conversation);
  EXPECT_EQ(shape("{}").shape, DocumentShape::NotConversation);
  EXPECT_EQ(shape("[1]").shape, DocumentShape::NotConversation);
  EXPECT_EQ(shape("[{}, \"x\"]").problem, "event 1 is not an object");
  EXPECT_EQ(shape("[{}").shape, DocumentShape::NotJson);
  EXPECT_EQ(shape("[{}]]").shape, DocumentShape::NotJson);
  EXPECT_EQ(shape("[{},]").shape, DocumentShape::NotJson);
  EXPECT_EQ(shape("").shape, DocumentShape::NotJson);
  const auto bad = shape("[\n  {\"a\": \"x\\q\"}\n]");
  EXPECT_EQ(bad.shape, DocumentShape::NotJson);
  EXPECT_EQ(bad.problem, "line 2, column 11: bad escape in string");
}

}  // namespace
}  // namespace jpblob
