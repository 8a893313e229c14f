#include "kept.hpp"

#include <limits>

#include "blob_store.hpp"

namespace jpblob {

std::vector<Digest> kept_copies_staged(const Workspace& ws, const GitCli& index,
                                       const std::vector<Digest>& digests) {
  if (!ws.kept() || !ws.repo() || digests.empty()) return {};
  std::vector<std::string> paths;
  for (const Digest& d : digests) paths.push_back(tracked_blob_path(d));
  return kept_copies_held(ws, index.index_ids(paths), digests);
}

std::vector<Digest> kept_copies_held(const Workspace& ws, const std::unordered_map<std::string, std::string>& staged,
                                     const std::vector<Digest>& digests) {
  std::vector<Digest> out;
  if (!ws.kept() || !ws.repo()) return out;
  for (const Digest& d : digests) {
    const auto id = staged.find(tracked_blob_path(d));
    if (id == staged.end()) continue;
    const auto raw = ws.kept()->read_raw(d);
    if (raw && ws.repo()->hash_blob(*raw) == id->second) out.push_back(d);
  }
  return out;
}

bool kept_copies_may_go(const Workspace& ws) { return ws.repo() && !ws.repo()->has_ref("refs/stash"); }

bool drop_kept_copy(const Workspace& ws, const Digest& digest, const std::string& id) {
  if (!ws.kept() || !kept_copies_may_go(ws)) return false;
  const auto raw = ws.kept()->read_raw(digest);
  return raw && ws.repo()->hash_blob(*raw) == id &&
         ws.kept()->remove(ws.kept()->entry_for(digest), std::numeric_limits<std::time_t>::max()) == Removal::Removed;
}

std::size_t drop_kept_copies(const Workspace& ws, const GitCli& index, const std::vector<Digest>& digests) {
  std::size_t dropped = 0;
  if (!kept_copies_may_go(ws)) return dropped;
  for (const Digest& d : kept_copies_staged(ws, index, digests))
    if (ws.kept()->remove(ws.kept()->entry_for(d), std::numeric_limits<std::time_t>::max()) == Removal::Removed)
      ++dropped;
  return dropped;
}

}  // namespace jpblob
