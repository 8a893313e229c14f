#include "core/workspace/kept.hpp"

#include <algorithm>
#include <filesystem>
#include <limits>

#include "core/base/parallel.hpp"
#include "core/store/blob_store.hpp"

namespace jpblob {

namespace fs = std::filesystem;

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
  std::vector<std::pair<Digest, const std::string*>> asked;
  for (const Digest& d : digests)
    if (const auto id = staged.find(tracked_blob_path(d)); id != staged.end()) asked.emplace_back(d, &id->second);
  // Thousands after a large commit: the reads wait on the disk.
  std::vector<char> held(asked.size(), 0);
  parallel_for(
      asked.size(),
      [&](std::size_t i) {
        const auto raw = ws.kept()->read_raw(asked[i].first);
        held[i] = raw && ws.repo()->hash_blob(*raw) == *asked[i].second;
      },
      kDiskWaiters);
  for (std::size_t i = 0; i < asked.size(); ++i)
    if (held[i]) out.push_back(asked[i].first);
  return out;
}

bool kept_copies_may_go(const Workspace& ws) {
  if (!ws.repo() || ws.repo()->has_ref("refs/stash")) return false;
  // Another worktree shares the folder: its staged conversations may need
  // a copy this index holds, and its hook may be reading it right now.
  std::error_code ec;
  return fs::is_empty(ws.repo()->commondir() / "worktrees", ec) || ec;
}

namespace {
std::size_t remove_all(const Workspace& ws, const std::vector<Digest>& digests) {
  std::vector<StoreEntry> entries;
  for (const Digest& d : digests) entries.push_back(ws.kept()->entry_for(d));
  std::vector<const StoreEntry*> each;
  for (const StoreEntry& e : entries) each.push_back(&e);
  const auto removals =
      ws.kept()->remove_all(each, [](std::size_t) { return std::numeric_limits<std::time_t>::max(); }, kDiskWaiters);
  return static_cast<std::size_t>(std::count(removals.begin(), removals.end(), Removal::Removed));
}
}  // namespace

std::size_t drop_kept_copies_held(const Workspace& ws, const std::unordered_map<std::string, std::string>& ids,
                                  const std::vector<Digest>& digests) {
  if (!ws.kept() || digests.empty() || !kept_copies_may_go(ws)) return 0;
  return remove_all(ws, kept_copies_held(ws, ids, digests));
}

std::size_t drop_kept_copies(const Workspace& ws, const GitCli& index, const std::vector<Digest>& digests) {
  if (!ws.kept() || !kept_copies_may_go(ws)) return 0;
  return remove_all(ws, kept_copies_staged(ws, index, digests));
}

std::size_t drop_kept_copies_staged_here(const Workspace& ws, const std::vector<Digest>& digests) {
  if (!ws.kept() || digests.empty() || !kept_copies_may_go(ws)) return 0;
  return remove_all(ws, digests);
}

}  // namespace jpblob
