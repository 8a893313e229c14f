// The blobs one smudge restores, fetched in windows of document order
// (core/documents/transform): each distinct blob once, each window on
// every core, so that a file holds its output and one window of blobs at a
// time (plus any blob a later reference uses again), not every blob it
// references.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/format/reference.hpp"
#include "core/store/blob_source.hpp"

namespace jpblob {

struct FetchPlan {
  std::vector<const Reference*> wanted;  // each distinct blob (digest and size) once, in order of first use
  std::vector<std::size_t> slot;         // for each use, its blob's place in `wanted`
  std::vector<std::size_t> last_use;     // for each blob, the last use that needs it
  std::vector<std::size_t> window_end;   // for each window, in order, the place in `wanted` it ends before
  std::uint64_t held_at_peak = 0;        // the most the windows hold at once, walked as the uses are
};

// The plan for `uses`, the references in document order (they must
// outlive the plan), in windows of at most `window_bytes` of blobs (a blob
// larger than that alone), as the references declare their sizes.
FetchPlan plan_fetches(const std::vector<const Reference*>& uses, std::uint64_t window_bytes);

// Fetches the blobs in places [from, to) of `plan.wanted` from `source`
// into `fetched` (sized as `wanted`), on every core. With `keep_missing`,
// a blob no copy gives back (or a corrupt one) is left nullopt and counted
// in the result; without, it throws Error naming the blob and `path`.
std::size_t fetch_blobs(const BlobSource& source, const FetchPlan& plan, std::size_t from, std::size_t to,
                        std::vector<std::optional<std::string>>& fetched, bool keep_missing,
                        const std::string& path);

}  // namespace jpblob
