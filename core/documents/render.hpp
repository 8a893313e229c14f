// Conversations and blobs rendered for people: what `git diff` shows
// through textconv, and what `git jpblob print` prints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/documents/transform.hpp"

namespace jpblob {

// git's core.bigFileThreshold when it is not set: git shows a file larger
// than this as "Binary files differ", never its content (git-config(1)).
inline constexpr std::uint64_t kDefaultBigFileThreshold = std::uint64_t{512} << 20;

// Replaces every reference in a conversation, wherever it stands, and every
// inline base64 payload (docs/FORMAT.md, "Payload positions") by its content as a JSON string: the text when it is UTF-8, else a
// "<binary: N bytes, blob:sha256:…>" note. A reference whose blob is missing
// or corrupt stays as it is. A payload of more than `big_file_threshold`
// bytes (git's core.bigFileThreshold), by the reference's declared size or
// the inline string's length, is never read, inflated or decoded: a
// one-line "<not shown: N bytes, …>" note with its digest stands in its
// place (a declared size that lies low cannot bypass it: the blob is then
// read only up to that size, and found corrupt). Input that is not a
// conversation is returned unchanged. Never throws for a blob; only for an
// unusable store, and TooLargeToRestore (naming `path`) when the result
// would pass `max_size` (jpblob.maxBlobSize; docs/FORMAT.md, "Bounds").
std::string render_conversation(std::string_view input, const BlobSource& source, std::uint64_t max_size,
                                const std::string& path,
                                std::uint64_t big_file_threshold = kDefaultBigFileThreshold);

// How much of a blob textconv shows.
inline constexpr std::size_t kShownBlobBytes = std::size_t{1} << 20;

// The content of a blob file (gzip) for people: the text when it is UTF-8,
// its first kShownBlobBytes and a note of the rest when it is longer, else
// a one-line "<binary: N bytes>" note; a note too when the file is not
// readable gzip. A blob of more than `big_file_threshold` bytes (its gzip
// trailer says so, or it inflates past it) is a one-line "<not shown: …>"
// note naming `digest` when given (a blob file's name): the trailer is read
// before anything is inflated, and inflating stops at the threshold.
// Memory is bounded by kShownBlobBytes.
std::string render_blob_file(std::string_view gz, std::uint64_t max_size,
                             std::uint64_t big_file_threshold = kDefaultBigFileThreshold,
                             const std::optional<Digest>& digest = std::nullopt);

}  // namespace jpblob
