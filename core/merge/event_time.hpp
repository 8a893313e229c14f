// An event's `timestamp` as a point in time, so that the merge driver orders
// teammates' turns by when they began, not by how the time is spelled (as
// strings, "…:30Z" sorted after "…:30.5Z").
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string_view>

namespace jpblob {

struct EventTime {
  std::int64_t seconds = 0;  // since 1970-01-01 00:00:00 UTC
  std::uint32_t nanos = 0;   // 0 to 999,999,999
  auto operator<=>(const EventTime&) const = default;
};

// Parses RFC 3339 ("2026-04-10T17:04:20.5Z", "…+02:00"; 't', 'z' and a space
// for 'T' accepted) and JP's own "2026-04-10 17:04:20.531236", which has no
// zone and is UTC. Fractions of any length are read to the nanosecond.
// nullopt for anything else, or a field out of range.
std::optional<EventTime> parse_event_time(std::string_view text);

}  // namespace jpblob
