// "Did you mean": the commands closest to a mistyped one, for the message
// git prints for `git verfy`. Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace jpblob {

// The Damerau-Levenshtein distance in its restricted form (optimal string
// alignment): the fewest insertions, deletions, substitutions and swaps of
// two neighbouring characters that turn `a` into `b`, no substring edited
// twice. Bytes are compared, not characters.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The commands `typed` most likely meant, best first, in the order of
// `commands` among equals: those `typed` begins (a prefix of 2+
// characters) when there are any, otherwise those at the smallest edit
// distance, provided it is small against the word (at most a third of the
// longer one's length, and at least 1 allowed). Empty when nothing is close.
std::vector<std::string> similar_commands(std::string_view typed, const std::vector<std::string>& commands);

// git's message for an unknown command, every line ended by '\n':
//   git-jpblob: 'verfy' is not a git-jpblob command. See 'git jpblob --help'.
//
//   The most similar command is
//   	verify
// ("commands are" for several; the first line alone when none).
std::string unknown_command_message(std::string_view typed, const std::vector<std::string>& similar);

}  // namespace jpblob
