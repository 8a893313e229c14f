// `git jpblob stats`: what the work tree's documents hold and what the
// store keeps for them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/base/progress.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

struct StatsReport {
  std::size_t conversations = 0;
  std::size_t references = 0;          // explicit references in work tree documents
  std::size_t inline_payloads = 0;     // payloads still inline in the work tree
  std::uint64_t inline_bytes = 0;      // their decoded size
  std::size_t unique_blobs = 0;        // blobs held: store files, and in a lean tree the index's blobs in git
  std::uint64_t stored_bytes = 0;      // their gzip size
  std::uint64_t unique_bytes = 0;      // their uncompressed size (from the gzip trailers)
  std::uint64_t referenced_bytes = 0;  // size of every payload, referenced or inline, duplicates counted
  // The payloads whose blob is in the store, referenced or inline,
  // duplicates counted, and their sizes (each blob's own size, from its
  // gzip trailer). Dedup saved stored_payload_bytes - stored_payload_unique_bytes:
  // what the store holds once for several payloads, and nothing for
  // payloads it does not hold yet.
  std::size_t stored_payloads = 0;
  std::uint64_t stored_payload_bytes = 0;
  std::uint64_t stored_payload_unique_bytes = 0;  // each of those blobs once
  // The payloads whose blob is not in the store: inline ones never cleaned
  // (or below jpblob.minSize), and references to a missing blob.
  std::size_t unstored_payloads = 0;
  std::uint64_t unstored_bytes = 0;  // their declared or decoded sizes

  std::uint64_t dedup_saved_bytes() const { return stored_payload_bytes - stored_payload_unique_bytes; }
  std::uint64_t compression_saved_bytes() const { return unique_bytes > stored_bytes ? unique_bytes - stored_bytes : 0; }
};

StatsReport run_stats(const Workspace& ws, const Progress& progress);

}  // namespace jpblob
