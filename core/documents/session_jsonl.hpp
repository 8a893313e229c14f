// Coding-agent session files (docs/FORMAT.md, "Agent sessions"): JSON Lines, one entry a line.
//
// Payloads (core/documents/image_sites: pi's and oh-my-pi's image blocks,
// oh-my-pi's `images`, `image_generation_call` results and `image_url` data
// URLs, Claude Code's base64 image and PDF sources, its `toolUseResult`
// copies and its tool-result text) are stored in
// the same gzip blob store as conversations, and "blob:sha256:<hex>" is
// written in their place; loading (the smudge direction) puts the value
// back. Every other byte of the file is kept as it was, so a session
// round-trips byte for byte.
//
// Rules:
// - Only a value that loading writes back exactly is externalized:
//   canonical standard base64 (of at least the site's threshold), or a
//   data URL in its canonical JSON spelling.
// - A line that is not valid JSON (a session cut short by a killed agent)
//   stays as it is, with one warning when externalizing; the other lines
//   are still processed.
// - Loading a reference whose blob is missing or corrupt leaves the
//   reference in place with one warning for each such blob, and the rest of
//   the session still loads. Lenient where conversations are strict: a
//   missing conversation blob fails the checkout, because smudge cannot give
//   back the file that was committed (unless jpblob.skipSmudgeErrors asks
//   for the committed form); a session keeps its reference as the agent
//   itself does when it loads one, and the file is still exactly what was
//   committed, so nothing is lost.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/store/blob_store.hpp"
#include "core/documents/image_sites.hpp"
#include "core/documents/transform.hpp"

namespace jpblob {

// Externalizes the large images of a session. Throws Error when a blob
// cannot be stored; nothing has been written to `out` then.
TransformReport externalize_session(std::string_view input, const BlobSink& store,
                                    const CleanOptions& options, const OutputSink& out);

// Puts the images of a session back inline. Never throws for a blob.
TransformReport load_session(std::string_view input, const BlobSource& source,
                             const SmudgeOptions& options, const OutputSink& out);

struct InlineImage {
  Digest digest;
  std::uint64_t size;  // decoded bytes
};

struct SessionImages {
  std::vector<Digest> referenced;  // blob:sha256: references at image sites
  std::vector<InlineImage> inline_images;  // images externalize would store
};

// What a session needs from the store, without storing anything (`min_size`
// as jpblob.minSize, for text sites). Lines that
// are not JSON are skipped, as externalizing skips them.
SessionImages session_images(std::string_view input, std::uint64_t min_size);

}  // namespace jpblob
