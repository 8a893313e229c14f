// JSON string tokens: decoding, and the one canonical encoding.
//
// The canonical encoding is the one JP's serializer (serde_json) writes:
// `"` and `\` escaped with a backslash; \b \f \n \r \t for those controls;
// every other byte below 0x20 as \u00XX with lowercase hex; everything else,
// non-ASCII included, written raw. The clean filter externalizes a string as
// "text" only when this encoding reproduces the original token byte for byte.
#pragma once

#include <optional>
#include <cstdint>
#include <string>
#include <string_view>

namespace jpblob {

// Decodes a string token (quotes included) that the scanner has validated.
// Returns nullopt when it holds a lone surrogate escape, which has no UTF-8
// form.
std::optional<std::string> decode_json_string(std::string_view token);

// The canonical token (quotes included) for UTF-8 text.
std::string encode_json_string(std::string_view text);
void append_json_string(std::string& out, std::string_view text);
// The length of what append_json_string appends for `text`, quotes
// included, without building it: callers bound memory before they spend it.
std::uint64_t json_string_length(std::string_view text);

}  // namespace jpblob
