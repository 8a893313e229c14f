#include "core/maintenance/age.hpp"

#include <utility>

#include "core/base/error.hpp"

namespace jpblob {

std::int64_t parse_age(const std::string& text) {
  if (text == "now") return 0;
  if (text == "never") return INT64_MAX;
  if (text == "yesterday") return 86400;
  std::string t = text;
  if (t.ends_with(".ago")) t.resize(t.size() - 4);
  std::size_t digits = 0;
  while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') ++digits;
  if (digits == 0 || digits > 12) throw Error("bad age '" + text + "' (try 1.hour.ago, 2d or now)", ErrorKind::Usage);
  const std::int64_t n = std::stoll(t.substr(0, digits));
  std::string unit = t.substr(digits);
  if (!unit.empty() && unit[0] == '.') unit.erase(0, 1);
  if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
  static const std::pair<const char*, std::int64_t> units[] = {
      {"", 1},          {"s", 1},     {"second", 1},     {"m", 60},  {"minute", 60},
      {"h", 3600},      {"hour", 3600}, {"d", 86400},    {"day", 86400},
      {"w", 604800},    {"week", 604800}, {"month", 30 * 86400}, {"year", 365 * 86400}};
  for (const auto& [name, seconds] : units)
    if (unit == name) return n * seconds;
  throw Error("bad age '" + text + "' (try 1.hour.ago, 2d or now)", ErrorKind::Usage);
}

}  // namespace jpblob
