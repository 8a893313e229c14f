#include "core/format/payload.hpp"

#include <algorithm>
#include <optional>

#include "core/format/literal.hpp"

namespace jpblob {

std::string describe_offset(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  const std::size_t line = 1 + static_cast<std::size_t>(
                                   std::count(text.begin(), text.begin() + offset, '\n'));
  const auto last_newline = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  const std::size_t column =
      offset - (last_newline == std::string_view::npos || offset == 0 ? 0 : last_newline + 1) + 1;
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

EventScan scan_events(std::string_view text,
                      const std::function<void(const JsonTree& event)>& on_event) {
  std::vector<JsonNode> nodes;
  JsonError error;
  std::size_t pos = skip_json_whitespace(text, 0);
  auto not_json = [&](const JsonError& e) {
    return EventScan{DocumentShape::NotJson, describe_offset(text, e.offset) + ": " + e.message};
  };
  if (pos >= text.size() || text[pos] != '[') {
    // Tell "not JSON" from "JSON, but not a conversation".
    if (!parse_json(text, error)) return not_json(error);
    return {DocumentShape::NotConversation, "the top-level value is not an array of events"};
  }
  pos = skip_json_whitespace(text, pos + 1);
  bool first = true;
  bool shaped = true;
  std::size_t index = 0;
  std::string problem;
  for (;;) {
    if (pos >= text.size()) return not_json({text.size(), "unexpected end of input"});
    if (text[pos] == ']') {
      ++pos;
      break;
    }
    if (!first) {
      if (text[pos] != ',') return not_json({pos, "expected ',' or ']'"});
      pos = skip_json_whitespace(text, pos + 1);
    }
    first = false;
    auto end = scan_json_value(text, pos, nodes, error);
    if (!end) return not_json(error);
    if (nodes[0].kind != JsonKind::Object) {
      if (shaped) problem = "event " + std::to_string(index) + " is not an object";
      shaped = false;
    } else if (shaped) {
      on_event(JsonTree(text, std::move(nodes)));
      nodes = {};
    }
    ++index;
    pos = skip_json_whitespace(text, *end);
  }
  if (skip_json_whitespace(text, pos) != text.size())
    return not_json({skip_json_whitespace(text, pos), "unexpected data after the JSON value"});
  if (!shaped) return {DocumentShape::NotConversation, problem};
  return {DocumentShape::Conversation, {}};
}

namespace {

bool is_content_object(const JsonTree& t, std::uint32_t i) {
  const JsonNode& n = t.node(i);
  if (n.kind != JsonKind::Object || !t.key_is(i, "content")) return false;
  const auto only = n.first_child;
  if (only == kNoNode || t.node(only).next_sibling != kNoNode) return false;
  return t.node(only).kind == JsonKind::String && (t.key_is(only, "text") || t.key_is(only, "blob"));
}

std::string event_type(const JsonTree& t) {
  const auto type = t.member(t.root(), "type");
  if (type == kNoNode || t.node(type).kind != JsonKind::String) return {};
  return t.string_value(type).value_or(std::string());
}

}  // namespace

namespace {

// Where the walk of one event stands.
struct Context {
  bool payload = false;    // strings here are payload strings (arguments, most metadata)
  bool user_data = false;  // inside the agent's data: a tool call's `arguments`, any `metadata`
};

// The site an object or array `i` standing in `context` is, if any; with
// `descend` set when the walk goes on inside it.
std::optional<SiteKind> object_site(const JsonTree& event, std::uint32_t i, Context context, bool& descend) {
  descend = false;
  // RFD 066 content objects are payloads at content positions only.
  if (!context.user_data && is_content_object(event, i)) return SiteKind::ContentObject;
  if (const auto ref = parse_reference(event, i)) {
    // Elsewhere a reference is JP's (RFD 066) or clean's, and no site.
    if (!context.user_data) return std::nullopt;
    // Inside the agent's data clean writes only encoded references, and
    // only where strings are payloads: any other is the agent's.
    if (context.payload && ref->encoding != PayloadEncoding::None) return SiteKind::Reference;
    return SiteKind::UserObject;
  }
  // The user's own value: nothing inside it is ours.
  if (context.payload && is_literal_object(event, i)) return SiteKind::Literal;
  // A reference with more keys (an encrypted one, say) is someone else's
  // form: nothing inside it is ours to move or restore.
  if (!named_blobs(event, i).empty()) return context.user_data ? std::optional(SiteKind::UserObject) : std::nullopt;
  descend = true;
  return std::nullopt;
}

}  // namespace

void find_payload_sites(const JsonTree& event, std::vector<PayloadSite>& out) {
  const std::string type = event_type(event);
  const bool metadata_is_payload = type != "config_delta" && type != "compaction";
  struct Item {
    std::uint32_t node;
    Context context;
  };
  std::vector<Item> stack;
  const std::size_t first_site = out.size();
  for (auto c = event.node(event.root()).first_child; c != kNoNode; c = event.node(c).next_sibling) {
    if (type == "tool_call_response" && event.key_is(c, "content")) {
      if (event.node(c).kind == JsonKind::String) {
        out.push_back({SiteKind::String, c});
        continue;
      }
      if (parse_reference(event, c)) {
        out.push_back({SiteKind::Reference, c});
        continue;
      }
      if (is_literal_object(event, c)) {
        out.push_back({SiteKind::Literal, c});
        continue;
      }
    }
    const bool arguments = type == "tool_call_request" && event.key_is(c, "arguments");
    const bool metadata = event.key_is(c, "metadata");
    stack.push_back({c, {arguments || (metadata_is_payload && metadata), arguments || metadata}});
  }
  while (!stack.empty()) {
    const Item item = stack.back();
    stack.pop_back();
    const JsonNode& n = event.node(item.node);
    if (n.kind == JsonKind::String) {
      if (item.context.payload) out.push_back({SiteKind::String, item.node, true});
      continue;
    }
    if (n.kind != JsonKind::Object && n.kind != JsonKind::Array) continue;
    bool descend = false;
    if (const auto kind = object_site(event, item.node, item.context, descend)) out.push_back({*kind, item.node});
    if (!descend) continue;
    for (auto c = n.first_child; c != kNoNode; c = event.node(c).next_sibling) stack.push_back({c, item.context});
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first_site), out.end(),
            [&](const PayloadSite& a, const PayloadSite& b) {
              return event.node(a.node).begin < event.node(b.node).begin;
            });
}

bool reference_pays(std::size_t token_length, const Reference& ref) {
  return format_reference(ref).size() < token_length;
}

std::vector<std::uint32_t> user_data_sites(const std::vector<PayloadSite>& sites) {
  std::vector<std::uint32_t> out;
  for (const PayloadSite& s : sites)
    if (s.kind == SiteKind::Literal || s.kind == SiteKind::UserObject) out.push_back(s.node);
  return out;
}

void find_references(const JsonTree& tree, std::vector<FoundReference>& out, std::vector<Digest>* named,
                     const std::vector<std::uint32_t>* users, std::vector<Digest>* in_literals) {
  std::vector<std::uint32_t> stack{tree.root()};
  const std::size_t first = out.size();
  const auto is_users = [&](std::uint32_t i) {
    return users && std::binary_search(users->begin(), users->end(), i, [&](std::uint32_t a, std::uint32_t b) {
             return tree.node(a).begin < tree.node(b).begin;
           });
  };
  while (!stack.empty()) {
    const auto i = stack.back();
    stack.pop_back();
    const JsonNode& n = tree.node(i);
    if (n.kind != JsonKind::Object && n.kind != JsonKind::Array) continue;
    if (is_users(i)) {
      // Conservative, like named_blobs: whatever the user's value names.
      std::vector<std::uint32_t> inner{i};
      while (!inner.empty()) {
        const auto k = inner.back();
        inner.pop_back();
        if (in_literals) {
          const std::vector<Digest> digests = named_blobs(tree, k);
          in_literals->insert(in_literals->end(), digests.begin(), digests.end());
        }
        for (auto c = tree.node(k).first_child; c != kNoNode; c = tree.node(c).next_sibling) inner.push_back(c);
      }
      continue;
    }
    if (auto ref = parse_reference(tree, i)) {
      out.push_back({i, *ref});
      continue;
    }
    if (named) {
      const std::vector<Digest> digests = named_blobs(tree, i);
      named->insert(named->end(), digests.begin(), digests.end());
    }
    for (auto c = n.first_child; c != kNoNode; c = tree.node(c).next_sibling) stack.push_back(c);
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
            [&](const FoundReference& a, const FoundReference& b) {
              return tree.node(a.node).begin < tree.node(b.node).begin;
            });
}

}  // namespace jpblob
