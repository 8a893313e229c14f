#include "core/merge/event_time.hpp"

namespace jpblob {

namespace {

// Reads `n` digits at `at`; nullopt unless they are all there.
std::optional<int> digits(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return std::nullopt;
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
// days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

}  // namespace

std::optional<EventTime> parse_event_time(std::string_view s) {
  // YYYY-MM-DD?HH:MM:SS
  const auto year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
  const auto hour = digits(s, 11, 2), minute = digits(s, 14, 2), second = digits(s, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (s[4] != '-' || s[7] != '-' || s[13] != ':' || s[16] != ':') return std::nullopt;
  if (s[10] != 'T' && s[10] != 't' && s[10] != ' ') return std::nullopt;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (*month < 1 || *month > 12 || *day < 1) return std::nullopt;
  if (*day > kDays[*month - 1] + (*month == 2 && leap(*year) ? 1 : 0)) return std::nullopt;
  if (*hour > 23 || *minute > 59 || *second > 60) return std::nullopt;  // 60: a leap second
  std::size_t at = 19;
  std::uint32_t nanos = 0;
  if (at < s.size() && s[at] == '.') {
    const std::size_t first = ++at;
    std::uint32_t scale = 100000000;
    for (; at < s.size() && s[at] >= '0' && s[at] <= '9'; ++at, scale /= 10) nanos += (s[at] - '0') * scale;
    if (at == first) return std::nullopt;
  }
  std::int64_t offset = 0;  // seconds east of UTC
  if (at < s.size()) {
    if ((s[at] == 'Z' || s[at] == 'z') && at + 1 == s.size()) {
      ++at;
    } else if ((s[at] == '+' || s[at] == '-') && at + 6 == s.size() && s[at + 3] == ':') {
      const auto oh = digits(s, at + 1, 2), om = digits(s, at + 4, 2);
      if (!oh || !om || *oh > 23 || *om > 59) return std::nullopt;
      offset = (s[at] == '-' ? -1 : 1) * (*oh * 3600 + *om * 60);
      at += 6;
    } else {
      return std::nullopt;
    }
  }
  EventTime t;
  t.seconds = days_from_civil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day)) * 86400 +
              *hour * 3600 + *minute * 60 + *second - offset;
  t.nanos = nanos;
  return t;
}

}  // namespace jpblob
