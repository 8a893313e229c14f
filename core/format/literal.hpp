// The escape for reference-shaped user data (docs/FORMAT.md, "Literal
// objects"): {"$jpblob-literal":V} stands, at a payload position, for the
// user's own value V, byte for byte.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/format/json_scan.hpp"

namespace jpblob {

inline constexpr std::string_view kLiteralKey = "$jpblob-literal";
// What clean writes before the user's value; "}" follows it.
inline constexpr std::string_view kLiteralOpen = R"({"$jpblob-literal":)";

// Whether node `i` is an object whose one and only key is `$jpblob-literal`
// (however escaped): the payload walk never looks inside its value.
bool is_literal_object(const JsonTree& tree, std::uint32_t i);

// Whether clean, reading JP's own form (InputForm::WorkTree), wraps node `i`
// standing where a reference may stand: an encoded reference (any spelling)
// or a literal that smudge would unwrap (`unwraps`).
bool wrapped_in_work_tree(const JsonTree& tree, std::uint32_t i);

// Whether smudge unwraps node `i`: exactly kLiteralOpen, a value that clean
// wraps (wrapped_in_work_tree), "}", with no other byte. Any other spelling
// is left as it is, by smudge and by clean alike, so that clean(smudge(c))
// == c holds for every committed c.
bool unwraps(const JsonTree& tree, std::uint32_t i);

// The node of a literal object's value.
std::uint32_t literal_value(const JsonTree& tree, std::uint32_t i);

// kLiteralOpen + value + "}".
void append_literal(std::string& out, std::string_view value);

}  // namespace jpblob
