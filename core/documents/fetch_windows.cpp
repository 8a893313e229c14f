#include "core/documents/fetch_windows.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <utility>

#include "core/base/error.hpp"
#include "core/base/parallel.hpp"

namespace jpblob {

FetchPlan plan_fetches(const std::vector<const Reference*>& uses, std::uint64_t window_bytes) {
  FetchPlan plan;
  // Each distinct blob is fetched (read, inflated, verified) once, on
  // every core; a blob referenced many times costs its bytes once.
  std::map<std::pair<Digest, std::uint64_t>, std::size_t> slot_of;
  plan.slot.resize(uses.size());
  for (std::size_t k = 0; k < uses.size(); ++k) {
    const Reference& ref = *uses[k];
    const auto [it, added] = slot_of.emplace(std::pair{ref.digest, ref.size}, plan.wanted.size());
    if (added) plan.wanted.push_back(&ref);
    plan.slot[k] = it->second;
  }
  // Blobs are fetched in windows of document order, each window on every
  // core: a file holds its output and one window of blobs at a time (plus
  // any blob a later event uses again), not every blob it references.
  const std::vector<const Reference*>& wanted = plan.wanted;
  plan.last_use.resize(wanted.size());
  for (std::size_t k = 0; k < uses.size(); ++k) plan.last_use[plan.slot[k]] = k;
  // What the windows hold, walked as smudge's assembly walks them.
  std::uint64_t held = 0;
  std::size_t fetched_to = 0;
  for (std::size_t k = 0; k < uses.size(); ++k) {
    if (plan.slot[k] == fetched_to) {
      std::uint64_t window = 0;
      for (; fetched_to < wanted.size() && (window == 0 || window + wanted[fetched_to]->size <= window_bytes);
           ++fetched_to)
        window += wanted[fetched_to]->size;
      plan.window_end.push_back(fetched_to);
      held += window;
      plan.held_at_peak = std::max(plan.held_at_peak, held);
    }
    if (plan.last_use[plan.slot[k]] == k) held -= wanted[plan.slot[k]]->size;
  }
  return plan;
}

std::size_t fetch_blobs(const BlobSource& source, const FetchPlan& plan, std::size_t from, std::size_t to,
                        std::vector<std::optional<std::string>>& fetched, bool keep_missing,
                        const std::string& path) {
  std::atomic<std::size_t> kept{0};
  parallel_for(to - from, [&](std::size_t i) {
    const std::size_t k = from + i;
    const Reference& ref = *plan.wanted[k];
    try {
      fetched[k] = source.fetch(ref.digest, ref.size);
    } catch (const Error& e) {
      if (keep_missing) {
        ++kept;
        return;
      }
      throw Error("cannot restore blob " + ref.digest.hex() + " referenced by " + path + ": " + e.what());
    }
    if (!fetched[k] && keep_missing) {
      ++kept;
    } else if (!fetched[k]) {
      throw Error("blob " + ref.digest.hex() + " referenced by " + path +
                  " is missing (not in .jp/blobs, the commit being checked out, the index, HEAD or any "
                  "other commit)");
    }
  });
  return kept.load();
}

}  // namespace jpblob
