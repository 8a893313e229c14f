#include "core/lean/kept_copies.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <filesystem>
#include <limits>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/base/parallel.hpp"
#include "core/git/subprocess.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

// The lock file, made when absent. Read-only is enough for flock(2), so
// every user of a shared repository can take it. Its folder is made only
// when missing: every document a filter cleans takes the lock, and the
// folder is there after the first.
Fd open_write_lock(const fs::path& path) {
  const auto open = [&] {
    return Fd(::open(path.c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666));
  };
  Fd lock = open();
  if (lock.valid() || errno != ENOENT) return lock;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  return open();
}

// Deletes `entries` of `store` whatever their age, several waiting on the
// disk at once; returns how many went.
std::size_t remove_entries(const BlobStore& store, const std::vector<StoreEntry>& entries) {
  std::vector<const StoreEntry*> each;
  for (const StoreEntry& e : entries) each.push_back(&e);
  const auto removals =
      store.remove_all(each, [](std::size_t) { return std::numeric_limits<std::time_t>::max(); }, kDiskWaiters);
  return static_cast<std::size_t>(std::count(removals.begin(), removals.end(), Removal::Removed));
}

}  // namespace

fs::path KeptCopies::retired_folder(const fs::path& common_dir) { return common_dir / "jpblob" / "retired"; }

KeptCopies::KeptCopies(const GitRepo& repo, StoreOptions options)
    : repo_(repo),
      store_(repo.commondir() / "jpblob" / "kept", repo.commondir(), options, StoreLayout::Flat),
      pending_(repo, options),
      lock_(repo.commondir() / "jpblob" / "kept.lock") {}

Fd KeptCopies::hold_writes() const {
  Fd lock = open_write_lock(lock_);
  if (!lock.valid()) return lock;
  while (::flock(lock.get(), LOCK_SH) != 0)
    if (errno != EINTR) throw errno_error("cannot lock " + lock_.string(), errno);
  return lock;
}

BlobStore::PutResult KeptCopies::put(const Digest& digest, std::string_view bytes) const {
  const Fd hold = hold_writes();  // until it is published (retire)
  return store_.put(digest, bytes);
}

std::vector<BlobStore::PutResult> KeptCopies::put_all(const std::vector<std::string_view>& payloads,
                                                      const std::vector<Digest>& digests, bool sync_names) const {
  const Fd hold = hold_writes();
  return store_.put_all(payloads, digests, sync_names);
}

void KeptCopies::keep(const BlobStore& from, const std::vector<Digest>& digests, bool sync) const {
  if (digests.empty()) return;
  const Fd hold = hold_writes();
  for (const Digest& digest : digests) from.link_into(store_, digest, sync && digests.size() == 1);
  // One sync for them all (copies made where no link could be are on the
  // kept folder's file system too).
  if (sync && digests.size() > 1) store_.sync();
}

void KeptCopies::mend(const Digest& digest, std::string_view bytes) const {
  try {
    store_.verify(digest);
    return;  // absent or sound
  } catch (const Error&) {
    // corrupt: written again below
  }
  replace_corrupt(digest, bytes);
}

bool KeptCopies::replace_corrupt(const Digest& digest, std::string_view bytes) const {
  const Fd hold = hold_writes();
  return store_.replace_corrupt(digest, bytes);
}

std::vector<Digest> KeptCopies::staged(const GitCli& index, const std::vector<Digest>& digests) const {
  if (digests.empty()) return {};
  std::vector<std::string> paths;
  for (const Digest& d : digests) paths.push_back(tracked_blob_path(d));
  return held(index.index_ids(paths), digests);
}

std::vector<Digest> KeptCopies::held(const StagedIds& staged, const std::vector<Digest>& digests) const {
  std::vector<Digest> out;
  std::vector<std::pair<Digest, const std::string*>> asked;
  for (const Digest& d : digests)
    if (const auto id = staged.find(tracked_blob_path(d)); id != staged.end()) asked.emplace_back(d, &id->second);
  // Thousands after a large commit: the reads wait on the disk.
  std::vector<char> holds(asked.size(), 0);
  parallel_for(
      asked.size(),
      [&](std::size_t i) {
        const auto raw = store_.read_raw(asked[i].first);
        holds[i] = raw && repo_.hash_blob(*raw) == *asked[i].second;
      },
      kDiskWaiters);
  for (std::size_t i = 0; i < asked.size(); ++i)
    if (holds[i]) out.push_back(asked[i].first);
  return out;
}

bool KeptCopies::may_go(bool stash_counts) const {
  if (stash_counts && repo_.has_ref("refs/stash")) return false;
  // An autostash is a stash entry git keeps aside until its operation
  // ends (GitCli::autostash_commits): the same holds for it.
  std::error_code ec;
  for (const char* autostash : {"rebase-merge/autostash", "rebase-apply/autostash", "MERGE_AUTOSTASH"})
    if (fs::exists(repo_.gitdir() / autostash, ec)) return false;
  // Another worktree shares the folder: its staged conversations may need
  // a copy this index holds, and its hook may be reading it right now.
  return fs::is_empty(repo_.commondir() / "worktrees", ec) || ec;
}

std::optional<std::time_t> KeptCopies::stash_changed() const {
  if (!repo_.has_ref("refs/stash")) return std::nullopt;
  // Each stash push and drop writes the stash's reflog and ref; a packed
  // stash ref counts packed-refs' time (later than the stash: careful).
  std::time_t newest = 0;
  const fs::path common = repo_.commondir();
  for (const fs::path& p : {common / "logs/refs/stash", common / "refs/stash", common / "packed-refs"}) {
    struct stat st {};
    if (::stat(p.c_str(), &st) == 0) newest = std::max(newest, st.st_mtime);
  }
  return newest ? newest : std::numeric_limits<std::time_t>::max();
}

std::size_t KeptCopies::remove_now(const std::vector<Digest>& digests) const {
  std::vector<StoreEntry> entries;
  for (const Digest& d : digests) entries.push_back(store_.entry_for(d));
  return remove_entries(store_, entries);
}

std::size_t KeptCopies::drop_held(const StagedIds& ids, const std::vector<Digest>& digests) const {
  if (digests.empty() || !may_go()) return 0;
  return remove_now(held(ids, digests));
}

std::size_t KeptCopies::drop_staged(const GitCli& index, const std::vector<Digest>& digests) const {
  if (digests.empty() || !may_go()) return 0;
  return remove_now(staged(index, digests));
}

std::size_t KeptCopies::drop_staged_here(const std::vector<Digest>& digests) const {
  if (digests.empty() || !may_go()) return 0;
  return remove_now(digests);
}

bool KeptCopies::drop(const Digest& digest) const {
  return store_.remove(store_.entry_for(digest), std::numeric_limits<std::time_t>::max()) == Removal::Removed;
}

bool KeptCopies::retire(const std::vector<Digest>& staged_here) const {
  if (staged_here.empty() || !may_go()) return false;
  const std::unordered_set<Digest, DigestHash> staged(staged_here.begin(), staged_here.end());
  if (!set_aside([&](const Digest& d) { return staged.count(d) != 0; })) return false;
  const fs::path common_dir = repo_.commondir();
  try {
    start_detached({this_executable().string(), "purge-retired", common_dir.string()}, common_dir);
  } catch (const Error&) {
    purge_retired(common_dir);  // no process: delete them here
  }
  return true;
}

bool KeptCopies::set_aside(const std::function<bool(const Digest&)>& may_go) const {
  // A name of its own: the time, this process, and a count for a second
  // commit within the same second.
  const fs::path folder = retired_folder(repo_.commondir());
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
  const Fd lock = open_write_lock(lock_);
  if (!lock.valid() || ::flock(lock.get(), LOCK_EX | LOCK_NB) != 0) return false;
  try {
    return store_.move_whole_to(dest, may_go);
  } catch (const Error&) {
    return false;  // a git folder that cannot be written there, another file system: one by one
  }
}

std::size_t KeptCopies::purge_retired(const fs::path& common_dir) {
  const fs::path folder = retired_folder(common_dir);
  std::error_code ec;
  // Only the folder this program makes: a link there is not followed.
  if (fs::symlink_status(folder, ec).type() != fs::file_type::directory) return 0;
  std::vector<fs::path> retired;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->symlink_status(ec).type() == fs::file_type::directory) retired.push_back(it->path());
  std::size_t removed = 0;
  for (const fs::path& dir : retired) {
    // The same deletions as any kept copy's (remove_entries), through the
    // store's own folders (no link followed). Only regular files named as
    // blobs or temporaries: a link or a folder among them stays, with the
    // folder, and stops nothing else.
    try {
      const BlobStore copies(dir, common_dir, {}, StoreLayout::Flat);
      std::vector<StoreEntry> entries = copies.entries();
      std::erase_if(entries, [](const StoreEntry& e) { return e.kind == StoreEntry::Kind::Foreign; });
      removed += remove_entries(copies, entries);
    } catch (const Error&) {
      continue;  // not ours to judge: left as it is
    }
    fs::remove(dir, ec);  // only when empty: anything else is not ours
  }
  return removed;
}

}  // namespace jpblob
