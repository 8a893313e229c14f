#include "core/lean/commit_blobs.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <unordered_map>

#include "core/base/error.hpp"
#include "core/base/parallel.hpp"
#include "core/base/trace.hpp"

namespace jpblob {

namespace fs = std::filesystem;

CommitBlobs::CommitBlobs(const LeanParts& parts, const NewBlobs& new_blobs, bool lean, const GitCli& git,
                         std::optional<fs::path> extra_index, fs::path index_file)
    : parts_(parts),
      new_blobs_(new_blobs),
      lean_(lean),
      git_(git),
      extra_index_(std::move(extra_index)),
      index_file_(std::move(index_file)) {}

bool CommitBlobs::index_is_real() const {
  std::error_code ec;
  return fs::equivalent(index_file_, parts_.repo.gitdir() / "index", ec);
}

// On any thread: reads and checks the kept copies `asked` names, and
// outside a lean tree writes each one's work-tree file from it (the store
// is thread-safe). Thousands after a large add: the reads wait on the disk.
void CommitBlobs::read_kept(const std::vector<WantedBlob>& wanted, const std::function<bool(std::size_t)>& asked,
                            std::vector<KeptRead>& kept) const {
  if (!parts_.kept) return;
  // Written once, as a pending pack (core/lean/pending_packs): a lean tree
  // stages it by id, trusting the record its writer made once the pack was
  // synced, once the pack's index in git's objects lists that id. One
  // lookup each, no file: thousands after a turn.
  const PendingPacks& pending = parts_.kept->pending();
  std::vector<char> on_disk(wanted.size(), 0);
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    if (!asked(i)) continue;
    if (lean_) {
      try {
        if (auto id = pending.staged_id(wanted[i].digest)) {
          kept[i].pending_id = std::move(*id);
          kept[i].is = KeptRead::Is::Sound;
          continue;
        }
      } catch (const Error& err) {
        kept[i] = {KeptRead::Is::Unusable, err.what(), {}};
        continue;
      }
    }
    on_disk[i] = 1;
  }
  parallel_for(
      wanted.size(),
      [&](std::size_t i) {
        if (!on_disk[i]) return;
        try {
          auto bytes = parts_.kept->store().get(wanted[i].digest, wanted[i].size);
          // Outside a lean tree a pending pack's blob is written out again.
          if (!bytes && !lean_) bytes = pending.fetch(wanted[i].digest, wanted[i].size);
          if (!bytes) return;
          if (!lean_) new_blobs_.put_in_work_tree(wanted[i].digest, *bytes);
          kept[i].is = KeptRead::Is::Sound;
        } catch (const Error& err) {
          kept[i] = {KeptRead::Is::Unusable, err.what(), {}};
        }
      },
      kDiskWaiters);
}

std::vector<BlobCopy> CommitBlobs::locate(const std::vector<WantedBlob>& wanted,
                                          const std::set<std::string>& store_changes) const {
  std::vector<BlobCopy> found = locate_once(wanted, store_changes);
  // `git commit -a` and `<paths>` clean in a filter process that lives
  // until git exits: its blobs reach a pending pack when it falls quiet,
  // which may be just after this hook started. Waited for, and looked
  // for again, only when a blob is missing.
  std::vector<std::size_t> nowhere;
  for (std::size_t i = 0; i < found.size(); ++i)
    if (found[i].is == BlobCopy::Is::Nowhere) nowhere.push_back(i);
  if (nowhere.empty() || !lean_ || !parts_.kept) return found;
  parts_.kept->pending().wait_for_writers(kWriterWaitMs);
  std::vector<WantedBlob> again;
  for (const std::size_t i : nowhere) again.push_back(wanted[i]);
  std::vector<BlobCopy> relocated = locate_once(again, store_changes);
  for (std::size_t k = 0; k < nowhere.size(); ++k) found[nowhere[k]] = std::move(relocated[k]);
  return found;
}

std::vector<BlobCopy> CommitBlobs::locate_once(const std::vector<WantedBlob>& wanted,
                                               const std::set<std::string>& store_changes) const {
  std::vector<BlobCopy> found(wanted.size());
  if (wanted.empty()) return found;
  // What this hook cleaned again (a document the filter's record does not
  // cover) into a pending pack is written before anything is looked for.
  if (lean_ && parts_.kept) parts_.kept->pending().flush();
  std::vector<KeptRead> kept(wanted.size());
  // In a lean tree every blob is missing, and a new one's home is its kept
  // copy: those are read first, and the index is asked only about the rest
  // (none, when a commit only adds), since asking reads the whole index (a
  // fifth of a second at 100,000 blobs).
  if (lean_) read_kept(wanted, [](std::size_t) { return true; }, kept);
  // A store path this commit does not change has in the index what HEAD's
  // tree has: looked up there, in trees libgit2 caches.
  StagedIds staged;
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    if (lean_ && kept[i].is == KeptRead::Is::Sound) continue;
    const std::string& path = wanted[i].path;
    if (store_changes.count(path)) paths.push_back(path);
    else if (auto id = parts_.repo.blob_id_at("HEAD", path)) staged.emplace(path, std::move(*id));
  }
  if (!paths.empty()) staged.merge(git_.index_ids(paths));
  if (!lean_) read_kept(wanted, [&](std::size_t i) { return !staged.count(wanted[i].path); }, kept);
  std::vector<std::size_t> nowhere;
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    const auto id = staged.find(wanted[i].path);
    found[i] = classify(wanted[i], kept[i], id == staged.end() ? nullptr : &id->second);
    if (found[i].is == BlobCopy::Is::Nowhere) nowhere.push_back(i);
  }
  look_in_other_indexes(wanted, nowhere, found);
  return found;
}

BlobCopy CommitBlobs::classify(const WantedBlob& w, const KeptRead& kept, const std::string* staged_id) const {
  if ((!staged_id || kept.is == KeptRead::Is::Sound) && kept.is != KeptRead::Is::Absent) {
    if (kept.is == KeptRead::Is::Unusable) return {BlobCopy::Is::Unusable, std::nullopt, kept.error, {}};
    // A lean tree stages it from the git folder, never passing through the
    // work tree; elsewhere read_kept() wrote its file again.
    if (!lean_) return {BlobCopy::Is::Restored, std::nullopt, {}, {}};
    if (!kept.pending_id.empty()) return {BlobCopy::Is::OutOfTree, std::nullopt, {}, {w.path, {}, kept.pending_id, true}};
    return {BlobCopy::Is::OutOfTree, std::nullopt, {},
            {w.path, fs::absolute(parts_.kept->store().path_of(w.digest)).string(), {}}};
  }
  if (!staged_id) return {};
  auto raw = parts_.repo.read_object(*staged_id);
  if (!raw) return {BlobCopy::Is::MissingObject, std::nullopt, {}, {}};
  // A store git-lfs tracks stages pointers: git-lfs holds the bytes and
  // checks them; a kept copy, when there is one, is checked instead.
  if (is_lfs_pointer(*raw)) {
    auto copy = parts_.kept ? parts_.kept->store().read_raw(w.digest) : std::nullopt;
    std::string detail = copy ? "(kept copy)" : "";
    return {BlobCopy::Is::Staged, std::move(copy), std::move(detail), {}};
  }
  return {BlobCopy::Is::Staged, std::move(raw), "(index)", {}};
}

void CommitBlobs::look_in_other_indexes(const std::vector<WantedBlob>& wanted, std::vector<std::size_t>& nowhere,
                                        std::vector<BlobCopy>& found) const {
  // `git commit <paths>` commits a temporary index made from HEAD, and the
  // hook reads that one: a blob an earlier commit's hook staged into the
  // real index (git holds it as index.lock now), whose kept copy then went,
  // is not in it when that commit was refused after the hook (a commit-msg
  // hook, an empty message). git's objects hold it.
  if (!nowhere.empty() && extra_index_)
    take_from_index(git_.with_index(*extra_index_), "the index", wanted, nowhere, found);
  // A lean tree's new blob whose copy in the git folder (shared by the
  // worktrees) went when another worktree's commit staged it: that
  // worktree's index gives it back. One git call a worktree, and only when
  // a blob is missing.
  if (nowhere.empty() || !lean_) return;
  std::vector<fs::path> others;
  try {
    others = git_.worktrees();
  } catch (const Error&) {
    return;  // the problem as usual
  }
  std::error_code ec;
  const fs::path top = parts_.repo.workdir().value_or(fs::path());
  for (const fs::path& wt : others) {
    if (nowhere.empty()) break;
    if (fs::equivalent(wt, top, ec)) continue;
    take_from_index(GitCli::in_worktree(wt), "index of " + wt.string(), wanted, nowhere, found);
  }
}

void CommitBlobs::take_from_index(const GitCli& index, const std::string& where, const std::vector<WantedBlob>& wanted,
                                  std::vector<std::size_t>& nowhere, std::vector<BlobCopy>& found) const {
  std::vector<std::string> paths;
  for (std::size_t i : nowhere) paths.push_back(wanted[i].path);
  std::unordered_map<std::string, std::string> held;
  try {
    held = index.index_ids(paths);
  } catch (const Error&) {
    return;  // a worktree being removed, say: the problem as usual
  }
  std::erase_if(nowhere, [&](std::size_t i) {
    const auto id = held.find(wanted[i].path);
    if (id == held.end()) return false;
    auto raw = parts_.repo.read_object(id->second);
    if (!raw) return false;
    BlobCopy& copy = found[i];
    copy.is = BlobCopy::Is::OutOfTree;
    copy.entry = {wanted[i].path, {}, id->second};
    if (!is_lfs_pointer(*raw)) {
      copy.check = std::move(*raw);
      copy.detail = "(" + where + ")";
    }
    return true;
  });
}

void CommitBlobs::after_staging(const Staged& staged) const {
  drop_kept(staged);  // before the files leave: a copy that is one of them goes unasked
  leave_work_tree(staged);
}

// The kept copies of the blobs this commit stages have done their job once
// the index that stays holds them. A plain `git commit` stages into that
// index: a copy that is the very file just staged (a link to it) goes
// unasked, any other in one git call. `git commit -a` and `<paths>` stage
// into an index git may still throw away: their copies go when the next
// commit drops the files (a lean tree), or at gc. Only this commit's blobs
// are looked at: the hook's cost grows with what is staged, not with what
// gc has yet to remove. None go while a stash exists (KeptCopies::may_go).
void CommitBlobs::drop_kept(const Staged& staged) const {
  const KeptCopies* kept = parts_.kept;
  if (!kept) return;
  if (kept->may_go(false)) release_pending(staged, index_is_real(), kept->stash_changed());
  if (!kept->may_go() || !index_is_real()) return;
  std::vector<Digest> ask;
  auto consider = [&](const std::string& path, bool from_file) {
    const auto digest = digest_of_tracked_path(path);
    if (!digest) return;
    struct stat file {}, copy {};
    if (::lstat(kept->store().path_of(*digest).c_str(), &copy) != 0) return;  // none kept
    if (from_file && ::lstat(parts_.store.path_of(*digest).c_str(), &file) == 0 && file.st_dev == copy.st_dev &&
        file.st_ino == copy.st_ino)
      kept->drop(*digest);
    else
      ask.push_back(*digest);
  };
  for (const std::string& path : staged.files) consider(path, true);
  for (const std::string& path : staged.by_hand) consider(path, false);
  // Every copy in the folder one staged here from the copy itself (a
  // commit of everything added): the folder goes aside whole, and a
  // process of its own deletes it. Tried before the folder is listed
  // below: that listing stats each copy (0.6 s at 114,000).
  if (lean_ && ask.empty()) {
    std::vector<Digest> from_copies;
    for (const GitCli::OutOfTree& e : staged.out_of_tree)
      if (!e.file.empty())
        if (const auto digest = digest_of_tracked_path(e.path)) from_copies.push_back(*digest);
    if (kept->retire(from_copies)) return;
  }
  // A lean tree's kept folder holds only blobs not committed yet (few):
  // each one this index now holds goes, this commit's and any an earlier
  // `git commit -a` staged. What this hook staged from the folder itself
  // needs no question: the index holds the ids it wrote.
  std::unordered_map<std::string, std::string> staged_here;
  std::vector<Digest> held_here;
  for (const GitCli::OutOfTree& e : staged.out_of_tree) staged_here.emplace(e.path, e.id);
  if (lean_)
    for (const StoreEntry& e : kept->store().entries())
      if (e.kind == StoreEntry::Kind::Blob && e.digest)
        (staged_here.count(tracked_blob_path(*e.digest)) ? held_here : ask).push_back(*e.digest);
  std::sort(ask.begin(), ask.end());
  ask.erase(std::unique(ask.begin(), ask.end()), ask.end());
  kept->drop_staged_here(held_here);
  kept->drop_staged(git_, ask);
}

// A pending pack whose every blob git holds by its own rules goes back to
// them (core/lean/pending_packs): blobs this commit staged into the index
// that stays (`into_real_index`: a plain `git commit`), as it holds what
// `git add` wrote, or blobs HEAD's tree holds (what an earlier `git commit
// -a` or `<paths>` staged into an index git then kept). Never beside
// another worktree or an autostash, nor a pack the stash has changed since
// (`stash_changed`): HEAD may move away and its commits expire while a
// stash made after the add still references the blob (found by the red
// team); an older stash entry references none of a newer pack's blobs.
// One with a blob neither holds (an add whose conversation changed again
// before the commit) waits for gc, which asks about every blob.
void CommitBlobs::release_pending(const Staged& staged, bool into_real_index,
                                  std::optional<std::time_t> stash_changed) const {
  if (!lean_) return;
  const PendingPacks& pending = parts_.kept->pending();
  auto packs = pending.packs();
  if (stash_changed) std::erase_if(packs, [&](const PendingPacks::Pack& p) { return *stash_changed >= p.written; });
  if (packs.empty()) return;
  std::unordered_map<std::string, std::string> staged_here;
  if (into_real_index)
    for (const GitCli::OutOfTree& e : staged.out_of_tree) staged_here.emplace(e.path, e.id);
  for (const PendingPacks::Pack& pack : packs) {
    const bool all = std::all_of(pack.blobs.begin(), pack.blobs.end(), [&](const auto& blob) {
      const std::string path = tracked_blob_path(blob.first);
      const auto it = staged_here.find(path);
      if (it != staged_here.end()) return it->second == blob.second;
      const auto lock = parts_.repo.lock();
      return parts_.repo.blob_id_at("HEAD", path) == blob.second;
    });
    if (all) pending.release(pack.name);
  }
}

// In a lean work tree the commit's blobs leave the work tree once staged:
// git's objects hold them now (the index, then the commit), and the
// skip-worktree bit keeps git from looking for their files. Should the
// commit not happen, the index still gives them back, but only the real
// one: `git commit -a` and `git commit <paths>` hand the hook an index git
// throws away when the commit is refused or killed later (an empty message,
// a commit-msg hook). There a file leaves only once the real index holds
// its blob, so what such a commit staged stays until the next commit (or
// checkout), which takes every store file the real index holds.
//
// A repository that is not lean becomes lean at the first commit whose
// index tracks blobs (SPEC §2: lean per repository, for those that hold
// conversations), unless it keeps its store by choice (lean_refused): every
// blob file the index holds then leaves like this commit's.
void CommitBlobs::leave_work_tree(const Staged& staged) const {
  bool entering = false;
  // lean_ says where new blobs are: a tree not lean yet (an adopting one)
  // has them in the git folder too (Workspace::stages_from_git_folder).
  if (!is_lean(parts_.repo)) {
    // The choice first: one config read, where listing the store's index
    // entries would cost a clone that keeps its store out every commit.
    if (lean_refused(git_) || !tracks_blobs(git_)) return;
    const auto layout = git_.layout();
    if (!layout) return;
    enter_lean(*layout, git_);
    JPBLOB_TRACE("lean: this work tree becomes lean at its first commit that tracks blobs");
    entering = true;
  }
  std::set<std::string> paths(staged.files.begin(), staged.files.end());
  paths.insert(staged.by_hand.begin(), staged.by_hand.end());
  if (entering)
    for (const IndexEntry& e : git_.index_entries({literal_pathspec(kWorkTreeStore)}))
      if (!e.skip_worktree && e.stage == 0) paths.insert(e.path);
  // A lean store holds only blobs not committed yet: few files. One that
  // links outside holds none this commit staged (staging refuses it).
  if (parts_.store.usable())
    for (const StoreEntry& e : parts_.store.entries())
      if (e.kind == StoreEntry::Kind::Blob && e.digest) paths.insert(tracked_blob_path(*e.digest));
  std::vector<GitCli> indexes = {git_};
  if (extra_index_) indexes.push_back(git_.with_index(*extra_index_));
  const GitCli keeper = git_.with_index(parts_.repo.gitdir() / "index");
  drop_blob_files(parts_, indexes, {paths.begin(), paths.end()}, index_is_real() ? nullptr : &keeper);
}

}  // namespace jpblob
