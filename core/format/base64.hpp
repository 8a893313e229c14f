// Strict, canonical base64 (RFC 4648) in the two alphabets JP has written.
//
// decode() accepts only what encode() produces: padded, no whitespace, no
// mixed alphabets, and zero bits in the unused tail. So a string decodes if
// and only if re-encoding it reproduces it exactly, which is what the clean
// filter's restoration check requires.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace jpblob {

enum class Base64Alphabet { Standard, UrlSafe };

std::string base64_encode(std::string_view bytes, Base64Alphabet alphabet);
void append_base64(std::string& out, std::string_view bytes, Base64Alphabet alphabet);

// The decoded bytes, or nullopt when `text` is not canonical base64 in that
// alphabet.
std::optional<std::string> base64_decode(std::string_view text, Base64Alphabet alphabet);

// The same into `out`, which has room for text.size() / 4 * 3 bytes (what
// it holds past the result is unspecified): how many bytes it wrote.
std::optional<std::size_t> base64_decode_into(std::string_view text, Base64Alphabet alphabet, char* out);

// Whether base64_decode would succeed, without allocating the output.
bool base64_is_canonical(std::string_view text, Base64Alphabet alphabet);

}  // namespace jpblob
