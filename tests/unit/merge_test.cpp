// core/merge/merge: appended events merge by themselves, in the committed form.
#include "core/merge/merge.hpp"
#include "core/merge/event_time.hpp"

#include <gtest/gtest.h>

namespace jpblob {
namespace {

std::string event(const std::string& stamp, const std::string& text) {
  return R"({"type":"chat_request","timestamp":")" + stamp + R"(","content":")" + text + "\"}";
}
std::string conversation(const std::vector<std::string>& events) {
  std::string out = "[\n  ";
  for (std::size_t i = 0; i < events.size(); ++i) out += (i ? ",\n  " : "") + events[i];
  return out + "\n]\n";
}

std::string typed(const std::string& type, const std::string& stamp, const std::string& id = "") {
  return R"({"type":")" + type + R"(","timestamp":")" + stamp + "\"" + (id.empty() ? "" : R"(,"id":")" + id + "\"") +
         "}";
}

TEST(Merge, WithoutTurnsEachSidesNewEventsStayTogetherInOursLayout) {
  const auto a = event("2026-01-01 10:00:00", "base");
  const auto o1 = event("2026-01-01 10:00:01", "ours 1"), o2 = event("2026-01-01 10:00:03", "ours 2");
  const auto t1 = event("2026-01-01 10:00:02", "theirs 1");
  const auto merged = merge_appended(DocumentKind::Conversation, conversation({a}), conversation({a, o1, o2}),
                                     conversation({a, t1}));
  ASSERT_TRUE(merged);
  EXPECT_EQ(*merged, conversation({a, o1, o2, t1}));
  // Theirs began first: their block comes first, whole.
  const auto early = event("2026-01-01 10:00:00.5", "theirs early");
  const auto swapped = merge_appended(DocumentKind::Conversation, conversation({a}), conversation({a, o1, o2}),
                                      conversation({a, early, t1}));
  ASSERT_TRUE(swapped);
  EXPECT_EQ(*swapped, conversation({a, early, t1, o1, o2}));
}

TEST(Merge, TurnsStayWholeAndAToolCallIsFollowedByItsOwnResponse) {
  const auto a = event("2026-01-01 10:00:00", "base");
  // Two turns each, interleaved in time event by event.
  const std::vector<std::string> ours_turns = {
      typed("turn_start", "2026-01-01 10:01:00"), typed("tool_call_request", "2026-01-01 10:01:02", "o1"),
      typed("tool_call_response", "2026-01-01 10:01:04", "o1"), typed("turn_start", "2026-01-01 10:03:00"),
      typed("chat_request", "2026-01-01 10:03:02")};
  const std::vector<std::string> theirs_turns = {
      typed("turn_start", "2026-01-01 10:01:01"), typed("tool_call_request", "2026-01-01 10:01:03", "t1"),
      typed("tool_call_response", "2026-01-01 10:01:05", "t1"), typed("turn_start", "2026-01-01 10:02:00"),
      typed("chat_request", "2026-01-01 10:02:01")};
  std::vector<std::string> ours = {a}, theirs = {a};
  ours.insert(ours.end(), ours_turns.begin(), ours_turns.end());
  theirs.insert(theirs.end(), theirs_turns.begin(), theirs_turns.end());
  const auto merged =
      merge_appended(DocumentKind::Conversation, conversation({a}), conversation(ours), conversation(theirs));
  ASSERT_TRUE(merged);
  EXPECT_EQ(*merged, conversation({a, ours_turns[0], ours_turns[1], ours_turns[2], theirs_turns[0], theirs_turns[1],
                                   theirs_turns[2], theirs_turns[3], theirs_turns[4], ours_turns[3], ours_turns[4]}));
  // The same from the other side: deterministic, only the side order of a
  // tie could change it, and there is none.
  const auto other =
      merge_appended(DocumentKind::Conversation, conversation({a}), conversation(theirs), conversation(ours));
  ASSERT_TRUE(other);
  EXPECT_EQ(*other, *merged);
}

TEST(Merge, BlocksAreOrderedByTimeNotBySpelling) {
  const auto a = event("2026-01-01T10:00:00Z", "base");
  // As strings "…:30Z" sorts after "…:30.5Z"; as times it is first.
  const auto o = event("2026-01-01T10:00:30.5Z", "ours"), t = event("2026-01-01T10:00:30Z", "theirs");
  auto merged = merge_appended(DocumentKind::Conversation, conversation({a}), conversation({a, o}), conversation({a, t}));
  ASSERT_TRUE(merged);
  EXPECT_EQ(*merged, conversation({a, t, o}));
  // JP's own spelling against RFC 3339 with an offset: 12:00+02:00 is 10:00Z.
  const auto jp = event("2026-01-01 10:00:01.000001", "jp"), offset = event("2026-01-01T12:00:01+02:00", "offset");
  merged = merge_appended(DocumentKind::Conversation, conversation({a}), conversation({a, jp}),
                          conversation({a, offset}));
  ASSERT_TRUE(merged);
  EXPECT_EQ(*merged, conversation({a, offset, jp}));
  // A tie: ours first, whichever side asks.
  const auto tie = event("2026-01-01 10:00:01", "theirs at the same time");
  merged = merge_appended(DocumentKind::Conversation, conversation({a}), conversation({a, event("2026-01-01 10:00:01", "ours")}),
                          conversation({a, tie}));
  ASSERT_TRUE(merged);
  EXPECT_EQ(*merged, conversation({a, event("2026-01-01 10:00:01", "ours"), tie}));
}

TEST(EventTime, ParsesRfc3339AndJpsSpelling) {
  const auto jp = parse_event_time("2026-04-10 17:04:20.531236");
  ASSERT_TRUE(jp);
  EXPECT_EQ(jp->seconds, 1775840660);
  EXPECT_EQ(jp->nanos, 531236000u);
  EXPECT_EQ(parse_event_time("2026-04-10T17:04:20.531236Z"), jp);
  EXPECT_EQ(parse_event_time("2026-04-10t19:04:20.531236+02:00"), jp);
  EXPECT_EQ(parse_event_time("2026-04-10T16:34:20.531236-00:30"), jp);
  EXPECT_EQ(parse_event_time("1970-01-01 00:00:00")->seconds, 0);
  EXPECT_EQ(parse_event_time("2024-02-29T00:00:00.123456789123Z")->nanos, 123456789u);
  EXPECT_LT(*parse_event_time("2026-01-01T10:00:30Z"), *parse_event_time("2026-01-01T10:00:30.5Z"));
  for (const char* bad : {"", "2", "2026-04-10", "2026-13-01 00:00:00", "2025-02-29 00:00:00", "2026-04-10 24:00:00",
                          "2026-04-10X17:04:20", "2026-04-10 17:04:20.", "2026-04-10 17:04:20Zx",
                          "2026-04-10 17:04:20+0200", "2026-04-10 17:04:20 "})
    EXPECT_FALSE(parse_event_time(bad)) << bad;
}

TEST(Merge, AnEventBothAppendedAppearsOnce) {
  const auto a = event("1", "base"), same = event("2", "same"), t = event("3", "theirs");
  const auto merged = merge_appended(DocumentKind::Conversation, conversation({a}), conversation({a, same}),
                                     conversation({a, same, t}));
  ASSERT_TRUE(merged);
  EXPECT_EQ(*merged, conversation({a, same, t}));
}

TEST(Merge, AnEditedOrRemovedEventIsNoAppend) {
  const auto a = event("1", "base"), b = event("2", "second");
  EXPECT_FALSE(merge_appended(DocumentKind::Conversation, conversation({a, b}), conversation({a}),
                              conversation({a, b, event("3", "x")})));
  EXPECT_FALSE(merge_appended(DocumentKind::Conversation, conversation({a}), conversation({event("1", "edited")}),
                              conversation({a})));
  EXPECT_FALSE(merge_appended(DocumentKind::Conversation, "not json", conversation({a}), conversation({a})));
}

TEST(Merge, FromAnEmptyBaseTheLayoutComesFromASideWithEvents) {
  const auto o = event("1", "ours"), t = event("2", "theirs");
  const auto merged = merge_appended(DocumentKind::Conversation, "[]\n", conversation({o}), conversation({t}));
  ASSERT_TRUE(merged);
  EXPECT_EQ(*merged, conversation({o, t}));
}

TEST(Merge, SessionLinesAppend) {
  const std::string base = "{\"type\":\"session\"}\n";
  const std::string ours = "{\"timestamp\":\"2026-01-01T10:00:02Z\",\"n\":1}\n";
  const std::string theirs = "{\"timestamp\":\"2026-01-01T10:00:01Z\",\"n\":2}\n";
  const auto merged = merge_appended(DocumentKind::Session, base, base + ours, base + theirs);
  ASSERT_TRUE(merged);
  EXPECT_EQ(*merged, base + theirs + ours);
  // A file cut mid-line is no log to append to.
  EXPECT_FALSE(merge_appended(DocumentKind::Session, base, base + "{\"n\":1}", base));
}

}  // namespace
}  // namespace jpblob
