// `git jpblob stats`: what the work tree's documents hold and what the
// store keeps for them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "progress.hpp"
#include "workspace.hpp"

namespace jpblob {

struct StatsReport {
  std::size_t conversations = 0;
  std::size_t references = 0;          // explicit references in work tree documents
  std::size_t inline_payloads = 0;     // payloads still inline in the work tree
  std::uint64_t inline_bytes = 0;      // their decoded size
  std::size_t unique_blobs = 0;        // blob files in the store
  std::uint64_t stored_bytes = 0;      // their gzip size
  std::uint64_t unique_bytes = 0;      // their uncompressed size (from the gzip trailers)
  std::uint64_t referenced_bytes = 0;  // size of every payload, referenced or inline, duplicates counted
};

StatsReport run_stats(const Workspace& ws, const Progress& progress);

}  // namespace jpblob
