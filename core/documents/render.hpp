// Conversations and blobs rendered for people: what `git diff` shows
// through textconv, and what `git jpblob print` prints.
#pragma once

#include <string>
#include <string_view>

#include "core/documents/transform.hpp"

namespace jpblob {

// Replaces every reference in a conversation, wherever it stands, and every
// inline base64 payload (docs/FORMAT.md, "Payload positions") by its content as a JSON string: the text when it is UTF-8, else a
// "<binary: N bytes, blob:sha256:…>" note. A reference whose blob is missing
// or corrupt stays as it is. Input that is not a conversation is returned
// unchanged. Never throws for a blob; only for an unusable store, and
// TooLargeToRestore (naming `path`) when the result would pass `max_size`
// (jpblob.maxBlobSize; docs/FORMAT.md, "Bounds").
std::string render_conversation(std::string_view input, const BlobSource& source, std::uint64_t max_size,
                                const std::string& path);

// How much of a blob textconv shows.
inline constexpr std::size_t kShownBlobBytes = std::size_t{1} << 20;

// The content of a blob file (gzip) for people: the text when it is UTF-8,
// its first kShownBlobBytes and a note of the rest when it is longer, else
// a one-line "<binary: N bytes>" note; a note too when the file is not
// readable gzip. Memory is bounded by kShownBlobBytes.
std::string render_blob_file(std::string_view gz, std::uint64_t max_size);

}  // namespace jpblob
