// Coding-agent session files (docs/FORMAT.md, "Agent sessions"): JSON Lines, one entry a line.
//
// Image blocks inside `content` arrays carry their picture as base64 in
// `data`. Externalizing (the clean direction) stores the decoded bytes in the
// same gzip blob store as conversations and writes "blob:sha256:<hex>" in
// place of the base64; loading (the smudge direction) puts the base64 back.
// Every other byte of the file is kept as it was, so a session round-trips
// byte for byte.
//
// Rules:
// - An image block is an object element of an array held under a key
//   `content`, at any depth, with "type": "image" and a string `data`.
// - Only canonical standard base64 of at least kImageExternalizeThreshold
//   characters is externalized: exactly what loading writes back.
// - A line that is not valid JSON (a session cut short by a killed agent)
//   stays as it is, with one warning when externalizing; the other lines
//   are still processed.
// - Loading a reference whose blob is missing or corrupt leaves the
//   reference in place with one warning for each such blob, and the rest of
//   the session still loads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/store/blob_store.hpp"
#include "core/documents/transform.hpp"

namespace jpblob {

// The seed's BLOB_EXTERNALIZE_THRESHOLD: base64 characters.
inline constexpr std::size_t kImageExternalizeThreshold = 1024;

// Externalizes the large images of a session. Throws Error when a blob
// cannot be stored; nothing has been written to `out` then.
TransformReport externalize_session(std::string_view input, const BlobStore& store,
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

// What a session needs from the store, without storing anything. Lines that
// are not JSON are skipped, as externalizing skips them.
SessionImages session_images(std::string_view input);

}  // namespace jpblob
