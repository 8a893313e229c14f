// Ages and lifetimes in git's expiry-date grammar (core/git/expiry_date):
// what `git gc --prune` takes, and the short forms git-jpblob took before.
#include "core/git/expiry_date.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

#include "test_support.hpp"

namespace jpblob {
namespace {

constexpr std::int64_t kDay = 86400;

std::optional<std::int64_t> age(const char* text) { return expiry_age(text, "--prune"); }

// "YYYY-MM-DD" of the day `days` from today, in local time (git's).
std::string local_date(int days) {
  const std::time_t t = std::time(nullptr) + days * kDay;
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

TEST(ExpiryAge, ShortFormsKeepTheirMeaning) {
  EXPECT_EQ(age("90"), 90);
  EXPECT_EQ(age("3600"), 3600);
  EXPECT_EQ(age("0"), 0);
  EXPECT_EQ(age("45s"), 45);
  EXPECT_EQ(age("30m"), 1800);
  EXPECT_EQ(age("2h"), 7200);
  EXPECT_EQ(age("3d"), 3 * kDay);
  EXPECT_EQ(age("1w"), 7 * kDay);
}

TEST(ExpiryAge, GitReadsEverythingElse) {
  EXPECT_EQ(age("now"), 0);
  EXPECT_EQ(age("all"), 0);
  EXPECT_EQ(age("never"), std::nullopt);
  EXPECT_EQ(age("false"), std::nullopt);
  EXPECT_EQ(age("1.hour.ago"), 3600);
  EXPECT_EQ(age("1.hour"), 3600);
  EXPECT_EQ(age("1 hour ago"), 3600);
  EXPECT_EQ(age("2.weeks.ago"), 14 * kDay);
  EXPECT_EQ(age("2 weeks ago"), 14 * kDay);
  EXPECT_EQ(age("yesterday"), kDay);
  EXPECT_EQ(age("3600.seconds.ago"), 3600);
  // Months and years are the calendar's, as git counts them.
  EXPECT_GE(*age("2.months.ago"), 59 * kDay);
  EXPECT_LE(*age("2.months.ago"), 62 * kDay);
  EXPECT_GE(*age("1.year.ago"), 365 * kDay);
  EXPECT_LE(*age("1.year.ago"), 366 * kDay);
  // A date, at this time of day (a daylight-saving hour either way).
  const std::int64_t ten_days = *expiry_age(local_date(-10), "--prune");
  EXPECT_LE(std::abs(ten_days - 10 * kDay), 3600) << local_date(-10);
  EXPECT_EQ(expiry_age(local_date(30), "--prune"), 0) << "a date to come is now";
}

// The seconds since the epoch of `days` from today at hh:mm, local time.
std::int64_t local_time(int days, int hour, int minute) {
  const std::time_t t = std::time(nullptr) + days * kDay;
  std::tm tm{};
  ::localtime_r(&t, &tm);
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = 0;
  tm.tm_isdst = -1;
  return std::mktime(&tm);
}

// "YYYY-MM-DD<sep>HH:MM[:SS]" of that moment.
std::string local_stamp(std::int64_t at, const char* format) {
  const std::time_t t = at;
  std::tm tm{};
  ::localtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}

// What `git gc --prune=<date>` takes besides the forms above: a date with a
// time of day (as git log prints it, or ISO 8601's "T"), a Unix time, and
// lengths of several units.
TEST(ExpiryAge, GitsDatesWithATimeOfDayAndItsOtherForms) {
  const std::int64_t ten_days_ago = local_time(-10, 10, 0);
  for (const char* format : {"%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S", "%Y.%m.%d %H:%M"}) {
    const std::string text = local_stamp(ten_days_ago, format);
    const auto got = expiry_age(text, "--prune");
    ASSERT_TRUE(got) << text;
    EXPECT_LE(std::abs(*got - (std::time(nullptr) - ten_days_ago)), 2) << text;
  }
  const std::int64_t at = std::time(nullptr) - 3 * kDay;
  EXPECT_LE(std::abs(*age(("@" + std::to_string(at)).c_str()) - 3 * kDay), 2);
  EXPECT_EQ(age("1 week 2 days ago"), 9 * kDay);
  EXPECT_EQ(age("10.minutes.ago"), 600);
  EXPECT_EQ(age("2 days"), 2 * kDay);
  EXPECT_EQ(expiry_age(local_stamp(local_time(30, 10, 0), "%Y-%m-%d %H:%M"), "--prune"), 0) << "to come: now";
}

TEST(ExpiryAge, RefusesWhatGitDoesNotReadAndMalformedShortForms) {
  // The short form's shape is never handed to git, which would read "1.5h"
  // as the first of May and "-5" as the fifth of this month.
  for (const char* bad : {"", "soon", "h", "tomorrow", "1.5h", "-5", "+5", "2 x", "1x", "9999999999999", "12.5"}) {
    try {
      expiry_age(bad, "--prune", ErrorKind::Usage);
      ADD_FAILURE() << bad;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Usage) << bad;
      EXPECT_TRUE(std::string(e.what()).starts_with("bad --prune '" + std::string(bad) + "': ")) << e.what();
    }
  }
}

}  // namespace
}  // namespace jpblob
