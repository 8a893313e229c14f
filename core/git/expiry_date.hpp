// Ages and lifetimes, in git's grammar for an expiry date: the one grammar
// for `gc --prune` and every age or duration setting (jpblob.artifactTtl).
//
// git reads the text, as `git gc --prune` and gc.pruneExpire are read
// (`git config --type=expiry-date`: approxidate, "2.weeks.ago", "2 weeks
// ago", "2026-11-01", "2026-11-01 10:00", "2026-11-01T10:00:00",
// "@1790000000", "yesterday", "1.hour"; "now" and "all" mean
// everything, "never" and "false" nothing), never a copy of its rules that
// would differ at their edges. One form stays git-jpblob's own, because git
// reads it as something else ("90" is the year 1990 to git, "30m" the 30th
// of this month): a number with at most one letter after it. Digits alone
// are seconds, with s, m, h, d or w a number of those units ("3600",
// "30m", "2d"), up to 12 digits; anything else of that shape ("1.5h",
// "-5", "2 x") is refused, never handed to git to misread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "core/base/error.hpp"

namespace jpblob {

// How long ago the expiry date `text` lies, in whole seconds: 0 for "now"
// (and for a date to come), nullopt for "never". A date git reads relative
// to now ("2.months.ago") is measured from the moment it was read, so a
// lifetime is "the length of time from now" git's date names. Runs git once
// (anywhere: no repository is read), not for a short form. Throws
// Error(`kind`) "bad <what> '<text>': …" when git does not read it as a date
// ("soon") or the short form is malformed or too large.
std::optional<std::int64_t> expiry_age(std::string_view text, std::string_view what,
                                       ErrorKind kind = ErrorKind::Failure);

}  // namespace jpblob
