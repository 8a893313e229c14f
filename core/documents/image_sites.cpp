#include "core/documents/image_sites.hpp"

#include <algorithm>

#include "core/format/base64.hpp"
#include "core/format/json_string.hpp"

namespace jpblob {

namespace {

// The key a value sits under. Array elements inherit their array's key, as
// oh-my-pi's persistence walk passes it down (session-persistence.ts).
enum class Key : std::uint8_t { Other, Content, Images, Frames, ImageUrl, AnthropicCompaction };

Key key_of(const JsonTree& t, std::uint32_t member) {
  if (t.key_is(member, "content")) return Key::Content;
  if (t.key_is(member, "images")) return Key::Images;
  if (t.key_is(member, "frames")) return Key::Frames;
  if (t.key_is(member, "image_url")) return Key::ImageUrl;
  if (t.key_is(member, "anthropicCompaction")) return Key::AnthropicCompaction;
  return Key::Other;
}

// Whether member `key` of object `obj` is the string `value`. Compared as
// written: both directions see the same bytes there, clean never touches
// them.
bool member_is(const JsonTree& t, std::uint32_t obj, std::string_view key, std::string_view value) {
  const auto m = t.member(obj, key);
  if (m == kNoNode || t.node(m).kind != JsonKind::String) return false;
  const std::string_view span = t.span(m);
  return span.size() == value.size() + 2 && span.substr(1, value.size()) == value;
}

std::uint32_t string_member(const JsonTree& t, std::uint32_t obj, std::string_view key) {
  const auto m = t.member(obj, key);
  return m != kNoNode && t.node(m).kind == JsonKind::String ? m : kNoNode;
}

bool non_empty_string_member(const JsonTree& t, std::uint32_t obj, std::string_view key) {
  const auto m = string_member(t, obj, key);
  return m != kNoNode && t.span(m).size() > 2;
}

bool image_mime_type(const JsonTree& t, std::uint32_t obj) {
  const auto m = string_member(t, obj, "mimeType");
  if (m == kNoNode) return false;
  const auto text = t.string_value(m);
  if (!text || text->size() < 6) return false;
  std::string head = text->substr(0, 6);
  for (char& c : head)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return head == "image/";
}

// Blocks oh-my-pi persists verbatim, without descending: their bytes are
// bound by a signature the provider checks on replay.
bool signed_block(const JsonTree& t, std::uint32_t obj, Key key) {
  const auto content = t.member(obj, "content");
  return member_is(t, obj, "type", "anthropicCompaction") ||
         (key == Key::AnthropicCompaction && content != kNoNode && t.node(content).kind == JsonKind::String) || (member_is(t, obj, "type", "thinking") && non_empty_string_member(t, obj, "thinkingSignature")) ||
         (member_is(t, obj, "type", "text") && non_empty_string_member(t, obj, "textSignature")) ||
         (member_is(t, obj, "type", "toolCall") && non_empty_string_member(t, obj, "thoughtSignature")) ||
         (member_is(t, obj, "type", "redactedThinking") && non_empty_string_member(t, obj, "data")) ||
         (member_is(t, obj, "type", "reasoning") && non_empty_string_member(t, obj, "encrypted_content")) ||
         (member_is(t, obj, "type", "anthropicServerTool") && t.member(obj, "block") != kNoNode);
}

struct Visit {
  std::uint32_t node;
  Key key;
  bool in_content_array;  // an element of an array that is itself under `content`
};

void tool_result_sites(const JsonTree& t, std::uint32_t obj, std::vector<ImageSite>& out);

void sites_of_object(const JsonTree& t, const Visit& v, std::vector<ImageSite>& out) {
  const std::uint32_t obj = v.node;
  if (member_is(t, obj, "type", "image_generation_call")) {
    if (const auto r = string_member(t, obj, "result"); r != kNoNode)
      out.push_back({r, ImageEncoding::Base64, kImageExternalizeThreshold});
    return;
  }
  const bool image_type = member_is(t, obj, "type", "image");
  if (const auto data = string_member(t, obj, "data"); data != kNoNode) {
    const bool payload_key = v.key == Key::Images || v.key == Key::Frames;
    if ((v.in_content_array && image_type) || (payload_key && (image_type || image_mime_type(t, obj)))) {
      out.push_back({data, ImageEncoding::Base64, kImageExternalizeThreshold});
      return;
    }
  }
  // Claude Code (Anthropic blocks): {"type":"image"|"document","source":{…}}
  if (image_type || member_is(t, obj, "type", "document")) {
    const auto source = t.member(obj, "source");
    if (source != kNoNode && t.node(source).kind == JsonKind::Object && member_is(t, source, "type", "base64"))
      if (const auto data = string_member(t, source, "data"); data != kNoNode)
        out.push_back({data, ImageEncoding::Base64, 1});
    return;
  }
  if (member_is(t, obj, "type", "tool_result")) tool_result_sites(t, obj, out);
}

// A tool result's text: its `content` string, or the text blocks of its
// `content` array (its images are found by the walk).
void tool_result_sites(const JsonTree& t, std::uint32_t obj, std::vector<ImageSite>& out) {
  const auto content = t.member(obj, "content");
  if (content == kNoNode) return;
  if (t.node(content).kind == JsonKind::String) {
    out.push_back({content, ImageEncoding::Text, kTextSiteMinChars});
    return;
  }
  if (t.node(content).kind != JsonKind::Array) return;
  for (auto e = t.node(content).first_child; e != kNoNode; e = t.node(e).next_sibling) {
    if (t.node(e).kind != JsonKind::Object || !member_is(t, e, "type", "text") || signed_block(t, e, Key::Content))
      continue;
    if (const auto text = string_member(t, e, "text"); text != kNoNode)
      out.push_back({text, ImageEncoding::Text, kTextSiteMinChars});
  }
}

// Claude Code's copy of a tool's result: the line's `toolUseResult`, its
// `stdout` (Bash) and string `content` (what Write wrote), and its `file`:
// `base64` for an image or a PDF the Read tool read, `content` for text.
void tool_use_result_sites(const JsonTree& t, std::vector<ImageSite>& out) {
  if (t.node(t.root()).kind != JsonKind::Object) return;
  const auto result = t.member(t.root(), "toolUseResult");
  if (result == kNoNode || t.node(result).kind != JsonKind::Object) return;
  for (const std::string_view key : {"stdout", "content"})
    if (const auto text = string_member(t, result, key); text != kNoNode)
      out.push_back({text, ImageEncoding::Text, kTextSiteMinChars});
  const auto file = t.member(result, "file");
  if (file == kNoNode || t.node(file).kind != JsonKind::Object) return;
  if (const auto b = string_member(t, file, "base64"); b != kNoNode) out.push_back({b, ImageEncoding::Base64, 1});
  if (const auto c = string_member(t, file, "content"); c != kNoNode)
    out.push_back({c, ImageEncoding::Text, kTextSiteMinChars});
}

}  // namespace

void find_image_sites(const JsonTree& t, std::vector<ImageSite>& out) {
  const std::size_t first = out.size();
  tool_use_result_sites(t, out);
  // Iterative: a line's nesting is bounded only by memory.
  std::vector<Visit> stack = {{t.root(), Key::Other, false}};
  std::vector<Visit> children;
  while (!stack.empty()) {
    const Visit v = stack.back();
    stack.pop_back();
    const JsonNode& n = t.node(v.node);
    if (n.kind == JsonKind::String) {
      if (v.key == Key::ImageUrl) out.push_back({v.node, ImageEncoding::DataUrl, 0});
      continue;
    }
    if (n.kind == JsonKind::Object) {
      if (signed_block(t, v.node, v.key)) continue;
      sites_of_object(t, v, out);
    } else if (n.kind != JsonKind::Array) {
      continue;
    }
    // Every other value is still walked: a site is a string, so sites
    // never nest, and the walk finds the same sites in both directions
    // whatever a site holds.
    const bool content_array = n.kind == JsonKind::Array && v.node != t.root() && v.key == Key::Content &&
                               t.key_is(v.node, "content");
    children.clear();
    for (auto c = n.first_child; c != kNoNode; c = t.node(c).next_sibling) {
      if (n.kind == JsonKind::Object)
        children.push_back({c, key_of(t, c), false});
      else
        children.push_back({c, v.key, content_array});
    }
    // Push in reverse so the walk visits children in document order.
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
  }
  // A tool result's text and `toolUseResult` are found out of walk order;
  // both directions splice in document order.
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
            [&](const ImageSite& a, const ImageSite& b) { return t.node(a.node).begin < t.node(b.node).begin; });
  // A `toolUseResult.file` shaped as a tool result would be found twice.
  out.erase(std::unique(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                        [](const ImageSite& a, const ImageSite& b) { return a.node == b.node; }),
            out.end());
}

bool is_image_data_url(std::string_view text) {
  return text.starts_with("data:image/") && text.find(";base64,") != std::string_view::npos;
}

std::optional<std::string> inline_image_bytes(std::string_view token, const ImageSite& site) {
  const std::string_view inner = token.substr(1, token.size() - 2);
  if (site.encoding == ImageEncoding::Base64) {
    if (inner.size() < site.min_chars || !base64_is_canonical(inner, Base64Alphabet::Standard)) return std::nullopt;
    return base64_decode(inner, Base64Alphabet::Standard);
  }
  if (inner.size() < site.min_chars) return std::nullopt;
  auto text = decode_json_string(token);
  // Only the canonical spelling moves: loading writes exactly that back.
  if (!text || encode_json_string(*text) != token) return std::nullopt;
  if (site.encoding == ImageEncoding::DataUrl && !is_image_data_url(*text)) return std::nullopt;
  return text;
}

std::optional<std::string> restored_image_token(std::string_view bytes, ImageEncoding encoding) {
  if (encoding == ImageEncoding::Base64) {
    std::string token = "\"";
    append_base64(token, bytes, Base64Alphabet::Standard);
    token.push_back('"');
    return token;
  }
  if ((encoding == ImageEncoding::DataUrl && !is_image_data_url(bytes)) || !is_valid_utf8(bytes)) return std::nullopt;
  return encode_json_string(bytes);
}

bool restored_fits(std::string_view token, const ImageSite& site) { return token.size() - 2 >= site.min_chars; }

}  // namespace jpblob
