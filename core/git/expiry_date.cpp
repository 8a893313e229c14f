#include "core/git/expiry_date.hpp"

#include <time.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <utility>

#include "core/git/subprocess.hpp"

namespace jpblob {

namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// A number (a sign and a fraction allowed) with at most one letter after
// it, blanks between: the shape of the short form. git would read any of
// these as a day of the month or a year, never as the length meant.
bool has_short_form_shape(std::string_view t) {
  std::size_t i = 0;
  if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
  const std::size_t whole = i;
  while (i < t.size() && is_digit(t[i])) ++i;
  if (i == whole) return false;
  if (i < t.size() && t[i] == '.') {
    const std::size_t fraction = ++i;
    while (i < t.size() && is_digit(t[i])) ++i;
    if (i == fraction) return false;  // "1.hour": git's own
  }
  while (i < t.size() && (t[i] == ' ' || t[i] == '\t')) ++i;
  if (i < t.size() && is_letter(t[i])) ++i;
  return i == t.size();
}

// The seconds a short form stands for; nullopt when it is not one.
std::optional<std::int64_t> short_form_seconds(std::string_view t) {
  std::size_t digits = 0;
  while (digits < t.size() && is_digit(t[digits])) ++digits;
  if (digits == 0 || digits > 12) return std::nullopt;
  std::int64_t n = 0;
  std::from_chars(t.data(), t.data() + digits, n);
  static constexpr std::pair<std::string_view, std::int64_t> units[] = {
      {"", 1}, {"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}, {"w", 604800}};
  for (const auto& [unit, seconds] : units)
    if (t.substr(digits) == unit) return n * seconds;
  return std::nullopt;
}

// git's reading of `text` as an expiry date, in seconds since the epoch
// (0 for never, the largest value for now), or nullopt when git refuses it.
// A --default with an empty config file is how git converts a value that
// is not in any file; it runs at the root, where no repository is read.
std::optional<std::uint64_t> git_expiry_date(std::string_view text) {
  const CommandOutput r = run_command({"git", "config", "--file", "/dev/null", "--type=expiry-date",
                                       "--default=" + std::string(text), "--get", "jpblob.expiry"},
                                      "/");
  if (r.status != 0) return std::nullopt;
  std::uint64_t date = 0;
  const auto [end, ec] = std::from_chars(r.out.data(), r.out.data() + r.out.size(), date);
  if (ec != std::errc() || (end != r.out.data() + r.out.size() && *end != '\n')) return std::nullopt;
  return date;
}

std::int64_t now_seconds() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_REALTIME, &ts);  // git's clock (gettimeofday), not time()'s coarser one
  return ts.tv_sec;
}

}  // namespace

std::optional<std::int64_t> expiry_age(std::string_view text, std::string_view what, ErrorKind kind) {
  const auto bad = [&] {
    return Error("bad " + std::string(what) + " '" + std::string(text) +
                     "': not a date git reads (2.weeks.ago, 2026-11-01, now, never) nor a number of seconds, "
                     "minutes, hours, days or weeks (90, 30m, 2d)",
                 kind);
  };
  if (has_short_form_shape(text)) {
    if (auto seconds = short_form_seconds(text)) return seconds;
    throw bad();
  }
  // git measures a relative date from its own "now"; ours is read around
  // it, and all again when the second turned meanwhile, so that a length
  // ("2.hours.ago") comes back whole. After three turns (a stalled machine)
  // the later second stands: an age a second too long keeps more, never less.
  for (int attempt = 0;; ++attempt) {
    const std::int64_t before = now_seconds();
    const auto date = git_expiry_date(text);
    const std::int64_t after = now_seconds();
    if (!date) throw bad();
    if (before != after && attempt < 2) continue;
    if (*date == 0) return std::nullopt;                                            // never
    if (*date > static_cast<std::uint64_t>(INT64_MAX)) return 0;                    // now: all has expired
    return std::max<std::int64_t>(0, after - static_cast<std::int64_t>(*date));  // a date to come: now
  }
}

}  // namespace jpblob
