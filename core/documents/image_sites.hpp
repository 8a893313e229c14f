// Where a session line holds an image payload (docs/FORMAT.md, "Agent
// sessions"). One table of shapes serves the three coding agents whose
// JSON Lines sessions teams commit: pi, oh-my-pi and Claude Code. The clean
// and the smudge direction, and gc's liveness, find the same sites, so what
// one externalizes the other restores.
//
// A site is a String node found by the shape around it, never by its
// value: the same site holds inline data before clean and a
// "blob:sha256:<hex>" URL after it, and both directions agree on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/format/json_scan.hpp"

namespace jpblob {

// The seed's BLOB_EXTERNALIZE_THRESHOLD (oh-my-pi's too): base64 characters.
inline constexpr std::size_t kImageExternalizeThreshold = 1024;

enum class ImageEncoding : std::uint8_t {
  Base64,   // standard base64; the blob holds the decoded bytes
  DataUrl,  // a `data:image/…;base64,…` URL; the blob holds the URL's text
  Text,     // any JSON string; the blob holds its UTF-8 text (Claude Code tool results)
};

// A text site moves only where its reference is shorter than the text:
// "blob:sha256:<64 hex>" is 76 characters, so 77 at least.
inline constexpr std::size_t kTextSiteMinChars = 77;

struct ImageSite {
  std::uint32_t node;        // a String node of the line's tree
  ImageEncoding encoding;
  std::size_t min_chars;     // a shorter inline value stays inline
};

// Whether clean stores `bytes` taken from `site`: jpblob.minSize bounds
// text sites only, as it bounds tool text in a conversation; an image or a
// document is always a payload.
inline bool site_stores(const ImageSite& site, std::size_t bytes, std::uint64_t min_size) {
  return site.encoding != ImageEncoding::Text || bytes >= min_size;
}

// Appends the image sites of one line, in document order:
// - pi / oh-my-pi image block: an object element of an array under a key
//   `content`, "type": "image", string `data` (1,024 characters at least);
// - oh-my-pi `images` (and snapcompact's `frames`): an object under a key
//   `images` or `frames` (directly or in arrays) with string `data` and
//   "type": "image" or a `mimeType` starting "image/" (1,024);
// - OpenAI `image_generation_call` item: its string `result` (1,024);
// - `image_url`: a string under a key `image_url` (directly or in arrays),
//   a data URL (no threshold);
// - Claude Code image block: an object element of an array under a key
//   `content` with "type": "image" and a `source` object with
//   "type": "base64" and string `data` (every non-empty one);
// - Claude Code image or PDF document block anywhere: an object with
//   "type": "image" or "document" and a `source` object with
//   "type": "base64" and string `data` (every non-empty one);
// - Claude Code `toolUseResult.file.base64` of a line (the second copy of a
//   read image or PDF; every non-empty one);
// - Claude Code tool-result text: the string `content` of a
//   "type": "tool_result" object, or the `text` of each "type": "text"
//   element of its array `content`, and the line's
//   `toolUseResult.file.content`, `toolUseResult.stdout` and string
//   `toolUseResult.content` (Text, kTextSiteMinChars).
// Sites come out in document order.
// As oh-my-pi, it does not look inside blocks bound to their exact bytes
// by a signature (signed thinking, text and tool calls, redacted thinking,
// encrypted reasoning, Anthropic server-tool blocks and compaction state).
void find_image_sites(const JsonTree& line, std::vector<ImageSite>& out);

// The bytes a blob would hold for the inline value `token` (quotes
// included) at `site`, or nullopt when clean keeps it inline: not canonical
// (loading could not write the same token back), too short, or not a data
// image URL.
std::optional<std::string> inline_image_bytes(std::string_view token, const ImageSite& site);

// The token loading writes at a site of `encoding` for blob `bytes`, or
// nullopt when clean would not turn that token back into a reference
// (inline_image_bytes gives nullopt for it); `min_chars` is checked by the
// caller, per site, as restored_fits.
std::optional<std::string> restored_image_token(std::string_view bytes, ImageEncoding encoding);
bool restored_fits(std::string_view token, const ImageSite& site);

// Whether `text` is what oh-my-pi calls an image data URL.
bool is_image_data_url(std::string_view text);

}  // namespace jpblob
