#include "core/format/json_scan.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <cstring>

#include "core/format/json_string.hpp"

namespace jpblob {

namespace {

bool is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

int hex_digit(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Length of the valid UTF-8 sequence starting at p (first byte >= 0x80), or 0.
std::size_t utf8_sequence(const unsigned char* p, const unsigned char* end) {
  const unsigned char c = p[0];
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xbf;  // bounds for the second byte
  if (c >= 0xc2 && c <= 0xdf) n = 2;
  else if (c == 0xe0) { n = 3; lo = 0xa0; }
  else if (c >= 0xe1 && c <= 0xec) n = 3;
  else if (c == 0xed) { n = 3; hi = 0x9f; }  // no UTF-16 surrogates
  else if (c >= 0xee && c <= 0xef) n = 3;
  else if (c == 0xf0) { n = 4; lo = 0x90; }
  else if (c >= 0xf1 && c <= 0xf3) n = 4;
  else if (c == 0xf4) { n = 4; hi = 0x8f; }
  else return 0;
  if (end - p < static_cast<std::ptrdiff_t>(n)) return 0;
  if (p[1] < lo || p[1] > hi) return 0;
  for (std::size_t i = 2; i < n; ++i)
    if (p[i] < 0x80 || p[i] > 0xbf) return 0;
  return n;
}

// Thrown by Scanner::add past kMaxJsonValues, caught by scan_json_value.
struct TooManyValues {
  std::size_t at;
};

class Scanner {
 public:
  Scanner(std::string_view text, std::vector<JsonNode>& nodes, JsonError& error)
      : s_(text), nodes_(nodes), error_(error) {}

  std::optional<std::size_t> run(std::size_t pos);

 private:
  bool fail(std::size_t at, const char* what) {
    error_ = {at, what};
    return false;
  }
  bool scan_string(std::size_t& pos);
  bool scan_number(std::size_t& pos);
  bool scan_literal(std::size_t& pos, const char* word);
  std::uint32_t add(JsonKind kind, std::size_t begin,
                    std::size_t key_begin, std::size_t key_end);

  struct Frame {
    std::uint32_t node;
    std::uint32_t last_child;
  };

  std::string_view s_;
  std::vector<JsonNode>& nodes_;
  JsonError& error_;
  std::vector<Frame> stack_;
};

std::uint32_t Scanner::add(JsonKind kind, std::size_t begin,
                           std::size_t key_begin, std::size_t key_end) {
  if (nodes_.size() >= kMaxJsonValues) throw TooManyValues{begin};
  const auto index = static_cast<std::uint32_t>(nodes_.size());
  nodes_.push_back(JsonNode{kind, begin, begin, key_begin, key_end});
  if (!stack_.empty()) {
    Frame& f = stack_.back();
    if (f.last_child == kNoNode) nodes_[f.node].first_child = index;
    else nodes_[f.last_child].next_sibling = index;
    f.last_child = index;
  }
  return index;
}

// The first index from `i` holding a byte that needs a look: a quote, a
// backslash, a control character or a non-ASCII byte. Sixteen bytes at a
// time where SSE2 is available (every x86-64): base64 payloads are long
// runs of plain ASCII.
std::size_t skip_plain_ascii(const unsigned char* p, std::size_t i, std::size_t n) {
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'), space = _mm_set1_epi8(0x20);
  while (i + 16 <= n) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i));
    // Signed compare: bytes >= 0x80 are negative, so one test finds both
    // control characters and non-ASCII bytes.
    const __m128i special = _mm_or_si128(_mm_cmplt_epi8(v, space),
                                         _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)));
    const int mask = _mm_movemask_epi8(special);
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
    i += 16;
  }
#endif
  while (i < n && p[i] >= 0x20 && p[i] < 0x80 && p[i] != '"' && p[i] != '\\') ++i;
  return i;
}

bool Scanner::scan_string(std::size_t& pos) {
  // pos is at the opening quote.
  const auto* p = reinterpret_cast<const unsigned char*>(s_.data());
  const std::size_t n = s_.size();
  std::size_t i = pos + 1;
  for (;;) {
    i = skip_plain_ascii(p, i, n);
    if (i >= n) return fail(n, "unterminated string");
    const unsigned char c = p[i];
    if (c == '"') {
      pos = i + 1;
      return true;
    }
    if (c < 0x20) return fail(i, "control character in string");
    if (c == '\\') {
      if (i + 1 >= n) return fail(n, "unterminated string");
      const unsigned char e = p[i + 1];
      if (e == 'u') {
        if (i + 6 > n) return fail(n, "unterminated \\u escape");
        for (std::size_t k = i + 2; k < i + 6; ++k)
          if (hex_digit(p[k]) < 0) return fail(k, "bad \\u escape");
        i += 6;
      } else if (std::strchr("\"\\/bfnrt", e) && e != 0) {
        i += 2;
      } else {
        return fail(i, "bad escape in string");
      }
      continue;
    }
    const std::size_t len = utf8_sequence(p + i, p + n);
    if (len == 0) return fail(i, "invalid UTF-8 in string");
    i += len;
  }
}

bool Scanner::scan_number(std::size_t& pos) {
  std::size_t i = pos;
  const std::size_t n = s_.size();
  auto digit = [&](std::size_t k) { return k < n && s_[k] >= '0' && s_[k] <= '9'; };
  if (i < n && s_[i] == '-') ++i;
  if (!digit(i)) return fail(i, "bad number");
  if (s_[i] == '0') ++i;
  else while (digit(i)) ++i;
  if (i < n && s_[i] == '.') {
    ++i;
    if (!digit(i)) return fail(i, "bad number");
    while (digit(i)) ++i;
  }
  if (i < n && (s_[i] == 'e' || s_[i] == 'E')) {
    ++i;
    if (i < n && (s_[i] == '+' || s_[i] == '-')) ++i;
    if (!digit(i)) return fail(i, "bad number");
    while (digit(i)) ++i;
  }
  pos = i;
  return true;
}

bool Scanner::scan_literal(std::size_t& pos, const char* word) {
  const std::size_t len = std::strlen(word);
  if (s_.substr(pos, len) != word) return fail(pos, "invalid literal");
  pos += len;
  return true;
}

std::optional<std::size_t> Scanner::run(std::size_t pos) {
  nodes_.clear();
  const std::size_t n = s_.size();
  std::size_t key_begin = 0, key_end = 0;
  bool have_key = false;
  for (;;) {
    // Expecting a value.
    pos = skip_json_whitespace(s_, pos);
    if (pos >= n) return fail(n, "unexpected end of input"), std::nullopt;
    const std::size_t kb = have_key ? key_begin : std::string_view::npos;
    const std::size_t ke = have_key ? key_end : std::string_view::npos;
    have_key = false;
    const char c = s_[pos];
    std::uint32_t node;
    bool opened = false;
    switch (c) {
      case '{':
      case '[':
        node = add(c == '{' ? JsonKind::Object : JsonKind::Array, pos, kb, ke);
        stack_.push_back({node, kNoNode});
        ++pos;
        opened = true;
        break;
      case '"':
        node = add(JsonKind::String, pos, kb, ke);
        if (!scan_string(pos)) return std::nullopt;
        nodes_[node].end = pos;
        break;
      case 't':
      case 'f':
      case 'n':
        node = add(c == 't' ? JsonKind::True : c == 'f' ? JsonKind::False : JsonKind::Null, pos,
                   kb, ke);
        if (!scan_literal(pos, c == 't' ? "true" : c == 'f' ? "false" : "null"))
          return std::nullopt;
        nodes_[node].end = pos;
        break;
      default:
        if (c != '-' && (c < '0' || c > '9')) return fail(pos, "unexpected character"), std::nullopt;
        node = add(JsonKind::Number, pos, kb, ke);
        if (!scan_number(pos)) return std::nullopt;
        nodes_[node].end = pos;
    }
    // After a value (or an opening bracket): close containers, find the next
    // member key or element.
    bool first = opened;
    for (;;) {
      if (stack_.empty()) return pos;
      Frame& f = stack_.back();
      const bool is_object = nodes_[f.node].kind == JsonKind::Object;
      pos = skip_json_whitespace(s_, pos);
      if (pos >= n) return fail(n, "unexpected end of input"), std::nullopt;
      const char d = s_[pos];
      if (d == (is_object ? '}' : ']')) {
        nodes_[f.node].end = ++pos;
        stack_.pop_back();
        first = false;
        continue;
      }
      if (!first) {
        if (d != ',') return fail(pos, is_object ? "expected ',' or '}'" : "expected ',' or ']'"),
                             std::nullopt;
        ++pos;
      }
      if (is_object) {
        pos = skip_json_whitespace(s_, pos);
        if (pos >= n || s_[pos] != '"')
          return fail(pos, "expected a string key"), std::nullopt;
        key_begin = pos;
        if (!scan_string(pos)) return std::nullopt;
        key_end = pos;
        pos = skip_json_whitespace(s_, pos);
        if (pos >= n || s_[pos] != ':') return fail(pos, "expected ':'"), std::nullopt;
        ++pos;
        have_key = true;
      }
      break;
    }
  }
}

}  // namespace

bool is_valid_utf8(std::string_view bytes) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const auto* end = p + bytes.size();
  while (p < end) {
    if (*p < 0x80) {
      ++p;
      continue;
    }
    const std::size_t len = utf8_sequence(p, end);
    if (len == 0) return false;
    p += len;
  }
  return true;
}

std::size_t skip_json_whitespace(std::string_view text, std::size_t pos) {
  while (pos < text.size() && is_ws(text[pos])) ++pos;
  return pos;
}

std::optional<std::size_t> scan_json_value(std::string_view text, std::size_t pos,
                                           std::vector<JsonNode>& nodes, JsonError& error) {
  Scanner scanner(text, nodes, error);
  try {
    return scanner.run(pos);
  } catch (const TooManyValues& e) {
    // A few hundred kilobytes of git object can hold a hundred million
    // numbers: a tree of them would take gigabytes.
    nodes.clear();
    nodes.shrink_to_fit();
    error = {e.at, "more than " + std::to_string(kMaxJsonValues) + " JSON values in one value; too many to read"};
    return std::nullopt;
  }
}

std::optional<JsonTree> parse_json(std::string_view text, JsonError& error) {
  std::vector<JsonNode> nodes;
  auto end = scan_json_value(text, 0, nodes, error);
  if (!end) return std::nullopt;
  const std::size_t rest = skip_json_whitespace(text, *end);
  if (rest != text.size()) {
    error = {rest, "unexpected data after the JSON value"};
    return std::nullopt;
  }
  return JsonTree(text, std::move(nodes));
}

bool JsonTree::key_is(std::uint32_t i, std::string_view key) const {
  const auto& nd = nodes_[i];
  if (nd.key_begin == std::string_view::npos) return false;
  std::string_view token = key_span(i);
  // Keys are nearly always written plainly; decode only when escaped.
  if (token.find('\\') == std::string_view::npos) return token.substr(1, token.size() - 2) == key;
  auto decoded = decode_json_string(token);
  return decoded && *decoded == key;
}

std::uint32_t JsonTree::member(std::uint32_t obj, std::string_view key) const {
  for (auto c = nodes_[obj].first_child; c != kNoNode; c = nodes_[c].next_sibling)
    if (key_is(c, key)) return c;
  return kNoNode;
}

std::size_t JsonTree::child_count(std::uint32_t i) const {
  std::size_t count = 0;
  for (auto c = nodes_[i].first_child; c != kNoNode; c = nodes_[c].next_sibling) ++count;
  return count;
}

std::optional<std::string> JsonTree::string_value(std::uint32_t i) const {
  return decode_json_string(span(i));
}

}  // namespace jpblob
