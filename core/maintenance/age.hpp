// Ages as gc's --prune takes them.
#pragma once

#include <cstdint>
#include <string>

namespace jpblob {

// Parses an age into seconds: "now", "never" (INT64_MAX), "yesterday",
// "<n>" seconds, "<n>s|m|h|d|w", or git's "<n>.<unit>[s][.ago]" (second,
// minute, hour, day, week, month of 30 days, year of 365). Throws a usage
// Error otherwise: an age that is not understood must never mean "now".
std::int64_t parse_age(const std::string& text);

}  // namespace jpblob
