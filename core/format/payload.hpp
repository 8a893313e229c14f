// Which values of a JP conversation are payloads (docs/FORMAT.md, "Payload positions"), and the walk
// over a conversation's events that every reader of events.json shares.
//
// Whose reference it is goes by where it stands (SiteKind::UserObject,
// issue 44). A plain {"$blob","size"} in a tool argument, naming a blob
// that never existed, blocked every commit of it: the hook, pre-push,
// pre-receive and `verify --history` required it. Inside the agent's data
// (`arguments`, `metadata`) clean writes only encoded references where
// strings are payloads, so every other blob-naming object there is the
// agent's: kept alive, never required, never wrapped (smudge never touches
// it, so no literal is needed and no committed byte changes). RFD 066's
// content objects are payloads only outside that data, or an agent's
// {"content": {"text": …}} argument came back in every clone as a plain
// reference.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/format/json_scan.hpp"
#include "core/format/reference.hpp"

namespace jpblob {

enum class DocumentShape {
  Conversation,     // a JSON array of objects
  NotJson,          // not valid JSON (or not UTF-8)
  NotConversation,  // valid JSON, but not an array of objects
};

struct EventScan {
  DocumentShape shape;
  std::string problem;  // why it is not a conversation, e.g. "line 3, column 9: bad escape"
};

// Scans a conversation one top-level event at a time, calling `on_event`
// with each event's tree (valid only during the call). The whole input is
// validated; when the result is not Conversation, the caller must discard
// whatever the callbacks gathered. Memory is bounded by the largest event.
EventScan scan_events(std::string_view text,
                      const std::function<void(const JsonTree& event)>& on_event);

enum class SiteKind {
  String,         // a payload string (FORMAT "Payload positions"), replaced by an encoded reference
  ContentObject,  // an inline content object (FORMAT "Payload positions"), replaced by a plain reference
  Reference,      // a reference where a payload string may stand: what smudge restores
  Literal,        // a literal object where a payload string may stand (FORMAT "Literal objects")
  // An object in the agent's data (`arguments`, `metadata`) that names a
  // blob where clean never writes a reference: a plain one (no `encoding`),
  // one with more keys, anything in the metadata of an event whose strings
  // are no payloads. The user's, as written: nothing inside it is moved,
  // restored or required (FORMAT "Literal objects").
  UserObject,
};

struct PayloadSite {
  SiteKind kind;
  std::uint32_t node;
  // A String inside `arguments` or `metadata`: not a content payload, so
  // it becomes a blob only where that pays (reference_pays).
  bool only_where_it_pays = false;
};

// Whether a string token of `token_length` bytes (quotes included) is
// replaced by `ref`: only where the reference clean writes is shorter
// (docs/FORMAT.md, "Payload positions"). A path or a flag in a tool call's
// arguments stays as JP wrote it; it would cost more bytes, a blob file and
// an index entry in every clone.
bool reference_pays(std::size_t token_length, const Reference& ref);

// Appends the payload sites of one event, in document order:
// - tool_call_response: its `content` when it is a string;
// - tool_call_request: every string inside `arguments`, at any depth;
// - every event but config_delta and compaction: every string inside
//   `metadata`, at any depth;
//   (these two only where the reference pays: only_where_it_pays)
// - at a content position (anywhere outside the agent's data, which is a
//   tool_call_request's `arguments` and any event's `metadata`): an object
//   under a key `content` whose only key is `text` (a string) or `blob` (a
//   string). Inside the agent's data the same shape is the agent's: its
//   string is a payload string like any other there.
// A reference standing where a payload string may stand is reported as a
// Reference site when clean could have written it there (outside the
// agent's data any reference; inside it, one with `encoding`); references
// elsewhere outside the agent's data are skipped. An object whose one key
// is `$jpblob-literal` standing there is a Literal site: the user's own
// value, with no site inside it. Any other object of the agent's data that
// names a blob (named_blobs) is a UserObject site, and one elsewhere is
// skipped: no site inside either. Clean and smudge share this walk, so
// smudge restores exactly the positions clean externalizes.
void find_payload_sites(const JsonTree& event, std::vector<PayloadSite>& out);

struct FoundReference {
  std::uint32_t node;
  Reference ref;
};

// Appends every reference in a tree, at any depth, in document order: the
// blobs a conversation keeps alive, wherever its references stand. With
// `named`, also appends the blobs every other object names under `$blob`
// (named_blobs: a reference with more keys, say), at any depth: liveness
// keeps them too, with no size to check. With `users` (the nodes holding
// the user's own data, sorted: user_data_sites), nothing inside them is a
// reference or named: every blob named there goes to `in_literals`
// instead, which keeps it alive but which nothing requires (a user's own
// data may name a blob that never existed).
void find_references(const JsonTree& tree, std::vector<FoundReference>& out,
                     std::vector<Digest>* named = nullptr, const std::vector<std::uint32_t>* users = nullptr,
                     std::vector<Digest>* in_literals = nullptr);

// The sites among `sites` that hold the user's own data (Literal and
// UserObject), in order.
std::vector<std::uint32_t> user_data_sites(const std::vector<PayloadSite>& sites);

// "line L, column C" for a byte offset, for error messages.
std::string describe_offset(std::string_view text, std::size_t offset);

}  // namespace jpblob
