#include "core/format/literal.hpp"

#include "core/format/reference.hpp"

namespace jpblob {

bool is_literal_object(const JsonTree& t, std::uint32_t i) {
  const JsonNode& n = t.node(i);
  if (n.kind != JsonKind::Object) return false;
  const auto only = n.first_child;
  return only != kNoNode && t.node(only).next_sibling == kNoNode && t.key_is(only, kLiteralKey);
}

std::uint32_t literal_value(const JsonTree& t, std::uint32_t i) { return t.node(i).first_child; }

bool wrapped_in_work_tree(const JsonTree& t, std::uint32_t i) {
  if (t.node(i).kind != JsonKind::Object) return false;
  if (const auto ref = parse_reference(t, i)) return ref->encoding != PayloadEncoding::None;
  return unwraps(t, i);
}

bool unwraps(const JsonTree& t, std::uint32_t i) {
  // Nested literals are checked from the outside in, one level a turn, so
  // deep nesting costs no stack.
  for (;;) {
    if (!is_literal_object(t, i)) return false;
    const JsonNode& n = t.node(i);
    const JsonNode& v = t.node(literal_value(t, i));
    if (!t.span(i).starts_with(kLiteralOpen) || v.begin != n.begin + kLiteralOpen.size() || v.end + 1 != n.end)
      return false;
    const auto value = literal_value(t, i);
    if (t.node(value).kind != JsonKind::Object) return false;
    if (const auto ref = parse_reference(t, value)) return ref->encoding != PayloadEncoding::None;
    i = value;
  }
}

void append_literal(std::string& out, std::string_view value) {
  out.append(kLiteralOpen);
  out.append(value);
  out.push_back('}');
}

}  // namespace jpblob
