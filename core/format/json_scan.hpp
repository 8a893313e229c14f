// A validating JSON scanner that keeps byte spans (RFC 8259, strict).
//
// It builds a flat tree of nodes that point into the input instead of
// copying values, so the transforms can splice replacements into the original
// bytes and leave everything else (whitespace, key order, escapes, number
// spelling) exactly as it was. It is iterative: nesting depth is bounded only
// by memory, never by the call stack. Strings are checked for valid escapes
// and valid UTF-8 (no overlong forms, no encoded surrogates); raw control
// characters inside strings are refused.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jpblob {

enum class JsonKind : std::uint8_t { Null, False, True, Number, String, Array, Object };

inline constexpr std::uint32_t kNoNode = UINT32_MAX;

struct JsonNode {
  JsonKind kind;
  std::size_t begin;      // first byte of the value
  std::size_t end;        // one past its last byte
  std::size_t key_begin;  // for object members: the key token, quotes included
  std::size_t key_end;
  std::uint32_t first_child = kNoNode;
  std::uint32_t next_sibling = kNoNode;
};

struct JsonError {
  std::size_t offset;
  std::string message;
};

// A parsed value: nodes[0] is the root; children follow their parents.
class JsonTree {
 public:
  JsonTree(std::string_view text, std::vector<JsonNode> nodes)
      : text_(text), nodes_(std::move(nodes)) {}

  std::string_view text() const { return text_; }
  const JsonNode& node(std::uint32_t i) const { return nodes_[i]; }
  std::uint32_t root() const { return 0; }
  std::size_t size() const { return nodes_.size(); }

  std::string_view span(std::uint32_t i) const {
    return text_.substr(nodes_[i].begin, nodes_[i].end - nodes_[i].begin);
  }
  std::string_view key_span(std::uint32_t i) const {
    return text_.substr(nodes_[i].key_begin, nodes_[i].key_end - nodes_[i].key_begin);
  }
  // True when member `i` has exactly the key `key` (compared decoded).
  bool key_is(std::uint32_t i, std::string_view key) const;
  // The first member of object `obj` named `key`, or kNoNode.
  std::uint32_t member(std::uint32_t obj, std::string_view key) const;
  std::size_t child_count(std::uint32_t i) const;
  // The decoded text of a String node, or nullopt when it holds a lone
  // surrogate escape (which has no UTF-8 form).
  std::optional<std::string> string_value(std::uint32_t i) const;

 private:
  std::string_view text_;
  std::vector<JsonNode> nodes_;
};

// The most JSON values one scan keeps (about 56 MB of nodes): a value
// holding more is refused as "too many to read", so memory is bounded by
// the input's size, not by how many values it packs in.
inline constexpr std::size_t kMaxJsonValues = std::size_t{1} << 20;

// Parses one value starting at `pos` (after optional whitespace) into
// `nodes`, which is cleared first. On success returns the offset just past
// the value; on failure returns nullopt and fills `error`.
std::optional<std::size_t> scan_json_value(std::string_view text, std::size_t pos,
                                           std::vector<JsonNode>& nodes, JsonError& error);

// Parses a whole JSON text: one value and nothing but whitespace around it.
std::optional<JsonTree> parse_json(std::string_view text, JsonError& error);

std::size_t skip_json_whitespace(std::string_view text, std::size_t pos);

// True when `bytes` is valid UTF-8 by the same rules the scanner applies to
// strings (no overlong forms, no surrogates, nothing past U+10FFFF).
bool is_valid_utf8(std::string_view bytes);

}  // namespace jpblob
