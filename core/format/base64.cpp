#include "core/format/base64.hpp"

#include <algorithm>
#include <array>

#include "core/base/buffer.hpp"

namespace jpblob {

namespace {

constexpr char kStandard[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kUrlSafe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

using Table = std::array<signed char, 256>;

constexpr Table make_table(const char* alphabet) {
  Table t{};
  for (auto& v : t) v = -1;
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(alphabet[i])] = static_cast<signed char>(i);
  return t;
}

constexpr Table kStandardTable = make_table(kStandard);
constexpr Table kUrlSafeTable = make_table(kUrlSafe);

}  // namespace

void append_base64(std::string& out, std::string_view bytes, Base64Alphabet alphabet) {
  const char* a = alphabet == Base64Alphabet::Standard ? kStandard : kUrlSafe;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t n = bytes.size();
  const std::size_t start = out.size();
  out.resize(start + (n + 2) / 3 * 4);
  char* o = out.data() + start;
  std::size_t i = 0;
  for (; i + 3 <= n; i += 3) {
    const unsigned v = unsigned(p[i]) << 16 | unsigned(p[i + 1]) << 8 | p[i + 2];
    *o++ = a[v >> 18];
    *o++ = a[v >> 12 & 63];
    *o++ = a[v >> 6 & 63];
    *o++ = a[v & 63];
  }
  if (n - i == 1) {
    const unsigned v = unsigned(p[i]) << 16;
    *o++ = a[v >> 18];
    *o++ = a[v >> 12 & 63];
    *o++ = '=';
    *o++ = '=';
  } else if (n - i == 2) {
    const unsigned v = unsigned(p[i]) << 16 | unsigned(p[i + 1]) << 8;
    *o++ = a[v >> 18];
    *o++ = a[v >> 12 & 63];
    *o++ = a[v >> 6 & 63];
    *o++ = '=';
  }
}

std::string base64_encode(std::string_view bytes, Base64Alphabet alphabet) {
  std::string out;
  append_base64(out, bytes, alphabet);
  return out;
}

namespace {

// Decodes into `o` (which holds n / 4 * 3 - padding bytes), or only
// validates when `o` is null. False when `text` is not canonical.
bool decode_into(std::string_view text, Base64Alphabet alphabet, char* o) {
  const Table& t = alphabet == Base64Alphabet::Standard ? kStandardTable : kUrlSafeTable;
  const std::size_t n = text.size();
  if (n % 4 != 0) return false;
  std::size_t pad = 0;
  if (n >= 1 && text[n - 1] == '=') pad = (n >= 2 && text[n - 2] == '=') ? 2 : 1;
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t full = pad ? n - 4 : n;
  for (std::size_t i = 0; i < full; i += 4) {
    const int a = t[p[i]], b = t[p[i + 1]], c = t[p[i + 2]], d = t[p[i + 3]];
    if ((a | b | c | d) < 0) return false;
    if (!o) continue;
    const unsigned v = unsigned(a) << 18 | unsigned(b) << 12 | unsigned(c) << 6 | unsigned(d);
    *o++ = static_cast<char>(v >> 16);
    *o++ = static_cast<char>(v >> 8 & 0xff);
    *o++ = static_cast<char>(v & 0xff);
  }
  if (pad) {
    const std::size_t i = n - 4;
    const int a = t[p[i]], b = t[p[i + 1]];
    if ((a | b) < 0) return false;
    if (pad == 2) {
      if (b & 0x0f) return false;  // non-zero unused bits: not canonical
      if (o) *o++ = static_cast<char>(a << 2 | b >> 4);
    } else {
      const int c = t[p[i + 2]];
      if (c < 0 || (c & 0x03)) return false;
      if (o) {
        *o++ = static_cast<char>(a << 2 | b >> 4);
        *o++ = static_cast<char>((b & 0x0f) << 4 | c >> 2);
      }
    }
  }
  return true;
}

std::size_t decoded_size(std::string_view text) {
  const std::size_t n = text.size();
  std::size_t pad = 0;
  if (n >= 1 && text[n - 1] == '=') pad = (n >= 2 && text[n - 2] == '=') ? 2 : 1;
  return n / 4 * 3 - pad;
}

}  // namespace

bool base64_is_canonical(std::string_view text, Base64Alphabet alphabet) {
  return decode_into(text, alphabet, nullptr);
}

std::optional<std::size_t> base64_decode_into(std::string_view text, Base64Alphabet alphabet, char* out) {
  if (text.size() % 4 != 0 || !decode_into(text, alphabet, out)) return std::nullopt;
  return decoded_size(text);
}

std::optional<std::string> base64_decode(std::string_view text, Base64Alphabet alphabet) {
  if (text.size() % 4 != 0) return std::nullopt;
  // Text that is not base64 usually shows it early: look at a prefix before
  // allocating the output.
  const std::size_t prefix = std::min<std::size_t>(text.size() >= 4 ? text.size() - 4 : 0, 256);
  if (!decode_into(text.substr(0, prefix), alphabet, nullptr)) return std::nullopt;
  std::string out;
  reserve_large(out, decoded_size(text));
  out.resize(decoded_size(text));
  if (!decode_into(text, alphabet, out.data())) return std::nullopt;
  return out;
}

}  // namespace jpblob
