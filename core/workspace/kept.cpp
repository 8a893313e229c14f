#include "core/workspace/kept.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <limits>
#include <unordered_set>

#include "core/base/parallel.hpp"
#include "core/git/subprocess.hpp"
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
// Deletes `entries` of `store` whatever their age, several waiting on the
// disk at once; returns how many went.
std::size_t remove_now(const BlobStore& store, const std::vector<StoreEntry>& entries) {
  std::vector<const StoreEntry*> each;
  for (const StoreEntry& e : entries) each.push_back(&e);
  const auto removals =
      store.remove_all(each, [](std::size_t) { return std::numeric_limits<std::time_t>::max(); }, kDiskWaiters);
  return static_cast<std::size_t>(std::count(removals.begin(), removals.end(), Removal::Removed));
}

std::size_t remove_all(const Workspace& ws, const std::vector<Digest>& digests) {
  std::vector<StoreEntry> entries;
  for (const Digest& d : digests) entries.push_back(ws.kept()->entry_for(d));
  return remove_now(*ws.kept(), entries);
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

fs::path retired_copies_folder(const fs::path& common_dir) { return common_dir / "jpblob" / "retired"; }

bool retire_kept_copies(const Workspace& ws, const std::vector<Digest>& staged_here) {
  if (!ws.kept() || !ws.repo() || staged_here.empty() || !kept_copies_may_go(ws)) return false;
  const std::unordered_set<Digest, DigestHash> staged(staged_here.begin(), staged_here.end());
  // A name of its own: the time, this process, and a count for a second
  // commit within the same second.
  const fs::path folder = retired_copies_folder(ws.repo()->commondir());
  fs::path dest;
  std::error_code ec;
  for (int n = 0;; ++n) {
    dest = folder / ("kept-" + std::to_string(::time(nullptr)) + "-" + std::to_string(::getpid()) + "-" +
                     std::to_string(n));
    if (!fs::exists(fs::symlink_status(dest, ec))) break;
  }
  // A `retired` that is a link or not a folder would take the copies
  // out of the git folder, or fail: the copies then go one by one.
  struct stat st {};
  if (::lstat(folder.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) return false;
  try {
    const auto retired = ws.kept()->retire_to(dest, [&](const Digest& d) { return staged.count(d) != 0; });
    if (retired != BlobStore::Retire::Moved) return false;
  } catch (const Error&) {
    return false;  // a git folder that cannot be written there, another file system: one by one
  }
  try {
    start_detached({this_executable().string(), "purge-retired", ws.repo()->commondir().string()},
                   ws.repo()->commondir());
  } catch (const Error&) {
    purge_retired_copies(ws.repo()->commondir());  // no process: delete them here
  }
  return true;
}

std::size_t purge_retired_copies(const fs::path& common_dir) {
  const fs::path folder = retired_copies_folder(common_dir);
  std::error_code ec;
  // Only the folder this program makes: a link there is not followed.
  if (fs::symlink_status(folder, ec).type() != fs::file_type::directory) return 0;
  std::vector<fs::path> retired;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->symlink_status(ec).type() == fs::file_type::directory) retired.push_back(it->path());
  std::size_t removed = 0;
  for (const fs::path& dir : retired) {
    // The same deletions as any kept copy's (remove_now), through the
    // store's own folders (no link followed). Only regular files named as
    // blobs or temporaries: a link or a folder among them stays, with the
    // folder, and stops nothing else.
    try {
      const BlobStore copies(dir, common_dir, {}, StoreLayout::Flat);
      std::vector<StoreEntry> entries = copies.entries();
      std::erase_if(entries, [](const StoreEntry& e) { return e.kind == StoreEntry::Kind::Foreign; });
      removed += remove_now(copies, entries);
    } catch (const Error&) {
      continue;  // not ours to judge: left as it is
    }
    fs::remove(dir, ec);  // only when empty: anything else is not ours
  }
  return removed;
}

}  // namespace jpblob
