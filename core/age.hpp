// Ages as gc's --prune takes them.
#pragma once

#include <cstdint>
#include <string>

namespace jpblob {

// Parses an age into seconds: "now", "never" (INT64_MAX), "<n>" seconds,
// "<n>s|m|h|d|w", or git's "<n>.<unit>[s][.ago]" (second, minute, hour,
// day, week). Throws a usage Error otherwise.
std::int64_t parse_age(const std::string& text);

}  // namespace jpblob
