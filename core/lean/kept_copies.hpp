// Kept copies (docs/lean.md, "Kept copies"): a second home for the blobs
// clean writes, in the git folder shared by a repository's worktrees
// (<common dir>/jpblob/kept, flat). git never checks out, stashes or cleans
// that folder, so a blob whose work-tree file git deletes (`git stash -u`
// or `-a`, `git clean -x`) or a user removes is still there for smudge; in
// a lean work tree it is the only home of the blobs not committed yet.
//
// KeptCopies owns the folder, its lock and its sweep: writers hold a shared
// lock on <common dir>/jpblob/kept.lock while they write, so that retire()
// can move the whole folder aside in one rename while holding it
// exclusively; once the index that stays holds a blob byte for byte, git
// gives it back (and a stash saves the index), so its copy goes. The
// pre-commit hook asks for the blobs it staged, gc for all.
//
// Thread safety: every method may be called from several threads at once.
#pragma once

#include <ctime>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/base/fs.hpp"
#include "core/format/digest.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"
#include "core/lean/pending_packs.hpp"
#include "core/store/blob_store.hpp"

namespace jpblob {

// Tracked path -> git blob id, as the index holds them.
using StagedIds = std::unordered_map<std::string, std::string>;

class KeptCopies {
 public:
  // The kept copies of `repo` (which must outlive them), in its common git
  // folder. Nothing is created until the first write.
  KeptCopies(const GitRepo& repo, StoreOptions options);

  // The folder's blobs, to read, list and check. Writes go through put()
  // and put_all(), which take the lock.
  const BlobStore& store() const { return store_; }
  const std::filesystem::path& root() const { return store_.root(); }

  // The store's put and put_all, each under the shared lock.
  BlobStore::PutResult put(const Digest& digest, std::string_view bytes) const;
  std::vector<BlobStore::PutResult> put_all(const std::vector<std::string_view>& payloads,
                                            const std::vector<Digest>& digests, bool sync_names = true) const;
  // Links each of `digests` from `from` (the work-tree store that just
  // published them) into the folder (BlobStore::link_into), under the
  // shared lock; with `sync`, one file-system sync for them all.
  void keep(const BlobStore& from, const std::vector<Digest>& digests, bool sync) const;
  // The store's replace_corrupt under the lock: a copy that is missing or
  // corrupt is written from `bytes`, which must be the blob.
  bool replace_corrupt(const Digest& digest, std::string_view bytes) const;
  // A copy that is corrupt (a link to a work-tree file written over in
  // place) is written again from `bytes`; a missing one stays missing.
  void mend(const Digest& digest, std::string_view bytes) const;
  // The gzip level of later writes (a setting read after opening).
  void set_compression_level(int level) {
    store_.set_compression_level(level);
    pending_.set_compression_level(level);
  }

  // The other home of blobs not committed yet: new blobs clean wrote as a
  // pack into git's objects where our hook stages them (core/lean/pending_packs).
  const PendingPacks& pending() const { return pending_; }

  // False while any stash entry or autostash exists: a stash may reference a blob whose
  // kept copy is its only one although the index holds the same bytes
  // today (another conversation with the same output), and the index can
  // drop them again (a refused commit, then `git reset`). Then only gc,
  // which reads what the stash needs, removes copies. False too while the
  // repository has other worktrees, which share the folder: their staged
  // conversations may need a copy this index holds (a lean tree's new
  // blobs live there only), and their hooks may be staging from it at that
  // moment. One reference lookup and one folder look, no git call.
  // With `stash_counts` false, the stash is left out of the question (the
  // caller asks stash_changed() instead).
  bool may_go(bool stash_counts = true) const;
  // When the stash last changed (an entry pushed or dropped), or nothing
  // when there is none: a pending pack written after it holds no blob a
  // stash entry references (clean writes none that a record or kept copy
  // still holds).
  std::optional<std::time_t> stash_changed() const;

  // The blobs of `digests` whose copy the index `ids` (tracked path -> blob
  // id) holds byte for byte: only a copy whose path is there is read.
  std::vector<Digest> held(const StagedIds& ids, const std::vector<Digest>& digests) const;
  // The same, asking `index` (a GitCli with the index to ask) in one call.
  std::vector<Digest> staged(const GitCli& index, const std::vector<Digest>& digests) const;

  // Removes the copies of staged(), unless may_go() says no; how many went.
  std::size_t drop_staged(const GitCli& index, const std::vector<Digest>& digests) const;
  // Removes the copies of held(), unless may_go() says no; how many went.
  std::size_t drop_held(const StagedIds& ids, const std::vector<Digest>& digests) const;
  // Removes the copies of `digests` that this process staged itself a
  // moment ago from the copies themselves (GitCli::stage_out_of_tree): the
  // index holds the ids of those very bytes, so none is read again (at
  // 100,000 new blobs, reading and hashing them again took two seconds).
  // Unless may_go() says no; how many went.
  std::size_t drop_staged_here(const std::vector<Digest>& digests) const;
  // Removes the copy of one blob whatever its age (a link to the very file
  // a commit staged); false when there was none.
  bool drop(const Digest& digest) const;

  // Takes the folder out of the way as a whole when every copy in it is
  // one of `staged_here` (as for drop_staged_here), unless may_go() says
  // no, and starts a process of its own that deletes it (`git-jpblob
  // purge-retired`, purge_retired()). For the commit that stages a whole
  // large add: deleting 114,000 copies kept that commit waiting five
  // seconds where unlink(2) waits on the disk's discard. False, with
  // nothing moved, when it cannot (a writer at work, a copy not staged
  // here, copies that must stay): the caller removes them one by one.
  bool retire(const std::vector<Digest>& staged_here) const;

  // retire()'s first half: moves the folder under the retired folder in
  // one rename when every copy in it is a blob `may_go` accepts, holding
  // the lock exclusively (never waited for: false while a writer holds
  // it), so that nothing written meanwhile goes with the folder unseen and
  // the next write makes the folder again. False, with nothing moved, when
  // it cannot. Deletes nothing.
  bool set_aside(const std::function<bool(const Digest&)>& may_go) const;

  // Where retire() moves folders, in the repository whose common dir is
  // `common_dir`; nothing else is ever written there.
  static std::filesystem::path retired_folder(const std::filesystem::path& common_dir);
  // Deletes the folders retire() moved aside in the repository whose
  // common dir is `common_dir`, and returns how many copies went. Run by
  // the process retire() starts, and by gc (sweep), for one that was killed
  // or never started. Several at once are harmless.
  static std::size_t purge_retired(const std::filesystem::path& common_dir);

 private:
  // The shared lock a writer holds until its file is published (an invalid
  // Fd where the lock file cannot be made: a git folder that cannot be
  // written, where the write fails as it would have).
  Fd hold_writes() const;
  std::size_t remove_now(const std::vector<Digest>& digests) const;

  const GitRepo& repo_;
  BlobStore store_;
  PendingPacks pending_;
  std::filesystem::path lock_;
};

}  // namespace jpblob
