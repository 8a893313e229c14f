#include "core/format/reference.hpp"

#include <charconv>

namespace jpblob {

std::string_view encoding_name(PayloadEncoding encoding) {
  switch (encoding) {
    case PayloadEncoding::Base64: return "base64";
    case PayloadEncoding::Base64Url: return "base64url";
    case PayloadEncoding::Text: return "text";
    case PayloadEncoding::None: break;
  }
  return "";
}

namespace {

std::optional<PayloadEncoding> encoding_from_name(std::string_view name) {
  if (name == "base64") return PayloadEncoding::Base64;
  if (name == "base64url") return PayloadEncoding::Base64Url;
  if (name == "text") return PayloadEncoding::Text;
  return std::nullopt;
}

std::optional<std::uint64_t> plain_uint(std::string_view token) {
  if (token.empty() || (token.size() > 1 && token[0] == '0')) return std::nullopt;
  std::uint64_t v = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
  if (ec != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<Reference> parse_reference(const JsonTree& tree, std::uint32_t i) {
  const JsonNode& obj = tree.node(i);
  if (obj.kind != JsonKind::Object) return std::nullopt;
  std::optional<Digest> digest;
  std::optional<std::uint64_t> size;
  std::optional<PayloadEncoding> encoding;
  bool saw_encoding = false;
  int members = 0;
  for (auto c = obj.first_child; c != kNoNode; c = tree.node(c).next_sibling) {
    if (++members > 3) return std::nullopt;
    const JsonNode& m = tree.node(c);
    if (tree.key_is(c, "$blob")) {
      if (digest || m.kind != JsonKind::String) return std::nullopt;
      auto text = tree.string_value(c);
      if (!text) return std::nullopt;
      digest = Digest::from_hex(*text);
      if (!digest) return std::nullopt;
    } else if (tree.key_is(c, "size")) {
      if (size || m.kind != JsonKind::Number) return std::nullopt;
      size = plain_uint(tree.span(c));
      if (!size) return std::nullopt;
    } else if (tree.key_is(c, "encoding")) {
      if (saw_encoding || m.kind != JsonKind::String) return std::nullopt;
      saw_encoding = true;
      auto text = tree.string_value(c);
      if (!text) return std::nullopt;
      encoding = encoding_from_name(*text);
      if (!encoding) return std::nullopt;
    } else {
      return std::nullopt;
    }
  }
  if (!digest || !size) return std::nullopt;
  return Reference{*digest, *size, encoding.value_or(PayloadEncoding::None)};
}

std::vector<Digest> named_blobs(const JsonTree& tree, std::uint32_t i) {
  std::vector<Digest> out;
  const JsonNode& obj = tree.node(i);
  if (obj.kind != JsonKind::Object) return out;
  for (auto c = obj.first_child; c != kNoNode; c = tree.node(c).next_sibling) {
    if (tree.node(c).kind != JsonKind::String || !tree.key_is(c, "$blob")) continue;
    auto text = tree.string_value(c);
    if (!text || text->size() != 64) continue;
    for (char& ch : *text) ch = static_cast<char>(ch >= 'A' && ch <= 'F' ? ch - 'A' + 'a' : ch);
    if (auto digest = Digest::from_hex(*text)) out.push_back(*digest);
  }
  return out;
}

std::optional<Reference> parse_reference_json(std::string_view json) {
  JsonError error;
  auto tree = parse_json(json, error);
  if (!tree) return std::nullopt;
  return parse_reference(*tree, tree->root());
}

void append_reference(std::string& out, const Reference& ref) {
  out.append(R"({"$blob":")");
  out.append(ref.digest.hex());
  out.append(R"(","size":)");
  out.append(std::to_string(ref.size));
  if (ref.encoding != PayloadEncoding::None) {
    out.append(R"(,"encoding":")");
    out.append(encoding_name(ref.encoding));
    out.push_back('"');
  }
  out.push_back('}');
}

std::string format_reference(const Reference& ref) {
  std::string out;
  append_reference(out, ref);
  return out;
}

std::optional<Digest> parse_blob_url(std::string_view url) {
  constexpr std::string_view kPrefix = "blob:sha256:";
  if (!url.starts_with(kPrefix)) return std::nullopt;
  return Digest::from_hex(url.substr(kPrefix.size()));
}

std::string format_blob_url(const Digest& digest) { return "blob:sha256:" + digest.hex(); }

}  // namespace jpblob
