// core/merge/merge: appended events merge by themselves, in the committed form.
#include "core/merge/merge.hpp"

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

TEST(Merge, AppendedEventsInterleaveByTimestampInOursLayout) {
  const auto a = event("2026-01-01 10:00:00", "base");
  const auto o1 = event("2026-01-01 10:00:01", "ours 1"), o2 = event("2026-01-01 10:00:03", "ours 2");
  const auto t1 = event("2026-01-01 10:00:02", "theirs 1");
  const auto merged = merge_appended(DocumentKind::Conversation, conversation({a}), conversation({a, o1, o2}),
                                     conversation({a, t1}));
  ASSERT_TRUE(merged);
  EXPECT_EQ(*merged, conversation({a, o1, t1, o2}));
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
  const auto merged = merge_appended(DocumentKind::Session, base, base + "{\"timestamp\":\"2\",\"n\":1}\n",
                                     base + "{\"timestamp\":\"1\",\"n\":2}\n");
  ASSERT_TRUE(merged);
  EXPECT_EQ(*merged, base + "{\"timestamp\":\"1\",\"n\":2}\n{\"timestamp\":\"2\",\"n\":1}\n");
  // A file cut mid-line is no log to append to.
  EXPECT_FALSE(merge_appended(DocumentKind::Session, base, base + "{\"n\":1}", base));
}

}  // namespace
}  // namespace jpblob
