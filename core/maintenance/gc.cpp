#include "core/maintenance/gc.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <deque>
#include <limits>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "core/documents/document.hpp"
#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/base/parallel.hpp"
#include "core/base/trace.hpp"
#include "core/git/blob_pack.hpp"
#include "core/git/config_reader.hpp"
#include "core/git/git_cli.hpp"
#include "core/lean/kept_copies.hpp"
#include "core/lean/needs_log.hpp"
#include "core/maintenance/live_set.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

using DigestSet = std::unordered_set<Digest, DigestHash>;

// Blobs referenced by a document in a commit some reflog names (in any
// worktree): the way back to them is `git reset HEAD@{n}` and the like;
// or in an unreachable commit git still keeps, a loose one written since
// `since` (a dropped stash entry, an amended commit): git's prune keeps
// such a commit, and all it reaches, for gc.pruneExpire, and `git fsck
// --lost-found` gives it back.
// Only asked for blobs that no git object holds, so usually never built.
// A version the live set has read is skipped: what it references is live
// already, so never a candidate (most reflog commits share most of their
// documents with the index).
DigestSet reflog_references(const Workspace& ws, const LiveSet& live, std::time_t since) {
  DigestSet out;
  std::unordered_set<std::string> commits, documents;
  const GitCli git(ws.top());
  std::vector<fs::path> worktrees = git.worktrees();
  for (const fs::path& wt : worktrees) {
    std::error_code ec;
    if (!fs::exists(wt, ec)) continue;
    for (auto& c : GitCli(wt).rev_list({"--no-walk", "--reflog"})) commits.insert(std::move(c));
  }
  for (auto& c : git.recent_loose_commits(since)) commits.insert(std::move(c));
  // One walk of every commit's trees, each folder once however many
  // commits hold it unchanged; git's own listing of each commit where
  // libgit2 cannot read a tree (a partial clone: git fetches it).
  const std::vector<std::string> listed(commits.begin(), commits.end());
  std::vector<TreeEntry> blobs;
  // The store holds no document: its 65,536 folders are not walked.
  if (auto walked = ws.repo()->blobs_below(listed, document_roots(), {std::string(kWorkTreeStore)})) {
    blobs = std::move(*walked);
  } else {
    for (const std::string& commit : listed)
      for (TreeEntry& e : git.tree_entries(commit, document_roots())) blobs.push_back(std::move(e));
  }
  for (const TreeEntry& e : blobs) {
    const auto kind = document_kind_at(e.path);
    if (!kind || !e.mode.starts_with("100") || !documents.insert(e.id).second) continue;
    if (live.versions.count(read_as(e.id, *kind))) continue;
    const auto text = ws.repo()->read_object(e.id);
    if (!text) continue;
    const DocumentNeeds needs = document_needs(*kind, *text, 0, InputForm::Committed);
    for (const BlobUse& use : needs.references) out.insert(use.digest);
    out.insert(needs.in_literals.begin(), needs.in_literals.end());
  }
  return out;
}

// True when git's objects hold this blob file's bytes: git can give the
// file back, so the copy in `store` is not the only one.
bool in_git_objects(const Workspace& ws, const BlobStore& store, const Digest& digest) {
  const auto raw = store.read_raw(digest);
  return raw && ws.repo()->has_object(ws.repo()->hash_blob(*raw));
}


// A temporary file may belong to a writer still at work, whatever
// --prune says: it waits an hour at least, as git's prune waits for its
// own temporary objects. A killed writer's leftovers go the next time.
std::int64_t grace_of(const StoreEntry& e, const GcOptions& options) {
  constexpr std::int64_t kTemporaryGrace = 3600;
  return e.kind == StoreEntry::Kind::Temporary ? std::max(options.grace_seconds, kTemporaryGrace)
                                              : options.grace_seconds;
}

// Leftovers of killed writers outside the store (docs/FORMAT.md,
// "Temporary files"): migrate's in the document folders (`in_documents`,
// found by the live set's walk of them), install's at the top and in .jp.
// The same hour of grace as the store's.
void sweep_temporaries(const Workspace& ws, const GcOptions& options, std::time_t now,
                       const std::vector<fs::path>& in_documents, GcReport& report) {
  if (!ws.base()) return;
  const SafeDir& base = *ws.base();
  auto temporary = [](const std::string& name) { return name.starts_with(AtomicFile::kTempPrefix); };
  std::vector<fs::path> found = in_documents;
  base.find_files(ws.storage(), temporary, found, SafeDir::Depth::One);
  if (ws.in_work_tree()) base.find_files(".", temporary, found, SafeDir::Depth::One);
  const std::int64_t grace = std::max<std::int64_t>(options.grace_seconds, 3600);
  for (const fs::path& rel : found) {
    const auto st = base.lstat(rel);
    if (!st || !S_ISREG(st->st_mode)) continue;
    if (options.grace_seconds == INT64_MAX || st->st_mtim.tv_sec + grace > now) {
      ++report.kept_young;
      continue;
    }
    if (!options.dry_run && !base.remove(rel)) continue;
    report.removed.push_back({rel.lexically_normal().string(), static_cast<std::uint64_t>(st->st_size)});
    report.bytes_freed += static_cast<std::uint64_t>(st->st_size);
  }
}

// One run of gc: the policy over the rooms. The store and the kept copies
// list and delete their own files, the kept copies say which of theirs the
// index holds, the live set says what is needed, and the index's blob
// entries are unstaged through the git module. Nothing is deleted when the
// live set cannot be built.
class GcRun {
 public:
  GcRun(const Workspace& ws, const GcOptions& options) : ws_(ws), options_(options), store_(ws.store()) {
    report_.dry_run = options.dry_run;
  }

  GcReport run(const Progress& progress) {
    // List first, then gather: a blob written after the listing is not a
    // candidate at all, and one written before it is either in the live
    // set or young enough for the grace period. Both homes are listed by
    // name: nearly every blob is live, and a stat of each cost 0.3 s for
    // 100,000 (more when the inodes are not cached). Only the candidates
    // are stat-ed, after the live set is built.
    entries_ = store_.entries_by_name();
    if (ws_.kept()) kept_entries_ = ws_.kept()->store().entries_by_name();
    live_ = build_live_set(ws_, progress);
    report_.conversations = live_.document_paths.size();
    find_kept_copies_the_index_holds();
    judge_homes();
    judge_pending_packs();
    std::vector<std::string> unstage = index_blobs_to_unstage();
    sweep_leftovers();
    // Unstage first, then delete: a gc killed in between leaves untracked
    // orphans, which the next gc deletes.
    if (!options_.dry_run && ws_.in_work_tree()) {
      for (const Doomed& d : doomed_)
        if (d.store == &store_ && d.entry->digest) unstage.push_back(tracked_blob_path(*d.entry->digest));
      GitCli(ws_.top()).remove_from_index(unstage);
    }
    delete_doomed();
    sweep_temporaries(ws_, options_, now_, live_.temporaries, report_);
    if (trace_enabled()) trace_decisions(unstage.size());
    std::sort(report_.removed.begin(), report_.removed.end(),
              [](const GcReport::Removed& a, const GcReport::Removed& b) { return a.path < b.path; });
    return report_;
  }

 private:
  struct Doomed {
    const BlobStore* store;
    const StoreEntry* entry;
  };

  bool is_kept(const BlobStore& from) const { return &from != &store_; }
  bool staged_kept(const BlobStore& from, const StoreEntry& e) const {
    return is_kept(from) && e.digest && staged_kept_.count(*e.digest);
  }

  // A kept copy whose blob the index holds byte for byte has done its job
  // (core/lean/kept_copies): what the pre-commit hook removes at each
  // commit, left by a commit that bypassed it or was refused after it.
  void find_kept_copies_the_index_holds() {
    if (!ws_.kept() || !ws_.repo()) return;
    std::vector<Digest> candidates;
    for (const StoreEntry& e : kept_entries_)
      if (e.digest) candidates.push_back(*e.digest);
    // The index's blob entries in one listing (gc lists them again below
    // to unstage): a cat-file lookup per copy cost 0.4 s for 100,000.
    StagedIds staged;
    for (IndexEntry& i : GitCli(ws_.top()).index_entries({literal_pathspec(kWorkTreeStore)}))
      if (i.stage == 0) staged.emplace(std::move(i.path), std::move(i.id));
    // Not one a stash needs: that index may drop the blob again, and the
    // stash would then restore a conversation whose blob is nowhere.
    for (const Digest& d : ws_.kept()->held(staged, candidates))
      if (!live_.stashed.count(d)) staged_kept_.insert(d);
  }

  // New blobs written into git's objects (core/lean/pending_packs): a
  // pack goes back to git's own rules once git holds each of its blobs
  // (the index, no stash needing it, or HEAD), or once none is referenced
  // (a reflog's commit included) and the pack is older than the grace
  // period, as a kept copy would go.
  // Its bytes are then git's to keep or prune, by gc.pruneExpire.
  void judge_pending_packs() {
    if (!ws_.kept() || !ws_.repo()) return;
    const PendingPacks& pending = ws_.kept()->pending();
    const auto packs = pending.packs();
    if (packs.empty()) return;
    StagedIds staged;
    for (IndexEntry& i : GitCli(ws_.top()).index_entries({literal_pathspec(kWorkTreeStore)}))
      if (i.stage == 0) staged.emplace(std::move(i.path), std::move(i.id));
    const GitRepo& repo = *ws_.repo();
    for (const PendingPacks::Pack& pack : packs) {
      const bool old = options_.grace_seconds != INT64_MAX && pack.used + options_.grace_seconds <= now_;
      std::size_t live = 0, young = 0;
      bool all_held = true, by_age = false;
      for (const auto& [digest, id] : pack.blobs) {
        const std::string path = tracked_blob_path(digest);
        const auto at = staged.find(path);
        // Not one a stash needs: the index may drop it, HEAD move away.
        const bool held = !live_.stashed.count(digest) &&
                          ((at != staged.end() && at->second == id) || repo.blob_id_at("HEAD", path) == id);
        if (held) continue;
        by_age = true;
        if (live_.digests.count(digest)) {
          ++live;
          all_held = false;
        } else if (!old) {
          ++young;
          all_held = false;
        } else if (in_a_reflog(digest)) {
          // A commit only a reflog remembers (made with --no-verify)
          // references it: the way back needs it.
          ++live;
          ++held_by_reflog_;
          all_held = false;
        }
      }
      if (all_held) {
        // Released by age only if no clean used it since it was listed
        // (the age again, just before, as for a blob file).
        const std::time_t cutoff = by_age ? pack.used + 1 : std::numeric_limits<std::time_t>::max();
        if (options_.dry_run || pending.release(pack.name, cutoff)) {
          ++report_.packs_released;
          continue;
        }
        ++report_.kept_young;
        continue;
      }
      report_.kept_live += live;
      report_.kept_young += young;
    }
  }

  void judge_homes() {
    const BlobStore* kept = ws_.kept() ? &ws_.kept()->store() : nullptr;
    for (const BlobStore* from : {&store_, kept}) {
      if (!from) continue;
      for (const StoreEntry& e : is_kept(*from) ? kept_entries_ : entries_) {
        // A live blob stays (a kept copy unless the index holds it): no
        // stat needed. Any other may be deleted, and is judged by its stat
        // (a link or folder named like a blob is Foreign then) and
        // reported with its size.
        if (e.digest && !staged_kept(*from, e) && live_.digests.count(*e.digest)) {
          judge(*from, e);
        } else if (auto st = from->stat(e)) {
          judge(*from, statted_.emplace_back(std::move(*st)));
        }
      }
    }
  }

  // The same rules for a work-tree file and a kept copy, except that a
  // kept copy of a live blob also goes once the index holds it.
  void judge(const BlobStore& from, const StoreEntry& e) {
    if (e.kind == StoreEntry::Kind::Foreign) return;  // not ours to judge
    if (e.digest && !is_kept(from)) present_.insert(*e.digest);
    if (staged_kept(from, e)) {
      doomed_.push_back({&from, &e});
      ++staged_kept_doomed_;
      return;
    }
    if (e.digest && live_.digests.count(*e.digest)) {
      ++report_.kept_live;
      return;
    }
    const bool old = options_.grace_seconds != INT64_MAX && e.mtime + grace_of(e, options_) <= now_;
    if (!old) {
      ++report_.kept_young;
      return;
    }
    if (e.digest && ws_.in_work_tree() && only_copy_in_reflog(from, *e.digest)) {
      ++report_.kept_live;
      ++held_by_reflog_;
      return;
    }
    doomed_.push_back({&from, &e});
  }

  // The only copy of a blob that a commit in a reflog references stays:
  // the way back to that commit needs it. Of the two questions, git's
  // objects are asked first (a file read and a hash) until a blob is
  // missing from them, which builds the reflog set; from then on the set
  // is asked first (a lookup), and git's objects only about its blobs.
  bool only_copy_in_reflog(const BlobStore& from, const Digest& digest) {
    if (reflogs_) return reflogs_->count(digest) && !in_git_objects(ws_, from, digest);
    if (in_git_objects(ws_, from, digest)) return false;
    return in_a_reflog(digest);
  }
  // Whether a commit a reflog (or an unreachable commit) remembers
  // references the blob; the set is built on the first question.
  bool in_a_reflog(const Digest& digest) {
    if (!reflogs_) {
      const std::int64_t grace = options_.grace_seconds;
      reflogs_ = reflog_references(ws_, live_, grace >= now_ ? 0 : now_ - static_cast<std::time_t>(grace));
    }
    return reflogs_->count(digest) > 0;
  }

  // Tracked blobs nothing needs that have no file: in a lean work tree
  // every committed blob (skip-worktree: git's objects hold it, and the
  // commits that did keep it), else what a gc killed after deleting, by an
  // older version, left behind. Unstaging is their removal: the next
  // commit no longer holds them, and nothing is deleted that git cannot
  // give back. A lean tree's are reported like deleted files, with the
  // blob file's size, so gc says the same in both modes.
  std::vector<std::string> index_blobs_to_unstage() {
    std::vector<std::string> unstage;
    if (!ws_.in_work_tree()) return unstage;
    for (const IndexEntry& i : GitCli(ws_.top()).index_entries({literal_pathspec(kWorkTreeStore)})) {
      const auto digest = digest_of_tracked_path(i.path);
      if (!digest || i.stage != 0 || present_.count(*digest)) continue;
      if (live_.digests.count(*digest)) {
        if (i.skip_worktree) ++report_.kept_live;  // as its file would count
        continue;
      }
      unstage.push_back(i.path);
      if (!i.skip_worktree) continue;
      const std::uint64_t size = ws_.repo()->object_size(i.id).value_or(0);
      report_.removed.push_back({i.path, size});
      report_.bytes_freed += size;
    }
    return unstage;
  }

  // What killed or bypassed writers of the other rooms left in the git
  // folder: the filter's records for the hook (core/lean/needs_log, a
  // cache: those a `--no-verify` commit never consumed), kept folders a
  // commit set aside whose deletion never ran, and a pack the hook was
  // writing when it was killed (never read by git, and as large as what
  // the commit staged).
  void sweep_leftovers() {
    if (!ws_.repo()) return;
    const fs::path common = ws_.repo()->commondir();
    if (!options_.dry_run) {
      remove_needs_logs(list_needs_logs(needs_log_folder(common)));
      report_.retired_purged = KeptCopies::purge_retired(common);
    }
    report_.unfinished_packs = remove_unfinished_packs(common / "objects" / "pack", !options_.dry_run);
    if (ws_.kept()) ws_.kept()->pending().sweep(!options_.dry_run);
  }

  // Deleting is mostly waiting: where the file system discards each freed
  // block before unlink(2) returns (ext4 mounted with -o discard), one
  // deletion at a time left gc waiting on the disk for each blob in turn.
  // The deletions are independent, so several wait at once.
  void delete_doomed() {
    std::vector<Removal> removals(doomed_.size(), Removal::Removed);
    const BlobStore* kept = ws_.kept() ? &ws_.kept()->store() : nullptr;
    for (const BlobStore* from : {&store_, kept}) {
      if (options_.dry_run || !from) continue;
      std::vector<std::size_t> mine;
      std::vector<const StoreEntry*> theirs;
      for (std::size_t i = 0; i < doomed_.size(); ++i)
        if (doomed_[i].store == from) {
          mine.push_back(i);
          theirs.push_back(doomed_[i].entry);
        }
      if (theirs.empty()) continue;
      // The age again, just before deleting: a clean may have used it. A
      // kept copy the index holds goes whatever its age: nothing ages into
      // it, and git gives the blob back.
      const auto removed = from->remove_all(
          theirs,
          [&](std::size_t k) {
            return staged_kept(*from, *theirs[k]) ? std::numeric_limits<std::time_t>::max()
                                                  : ::time(nullptr) - grace_of(*theirs[k], options_);
          },
          kDiskWaiters);
      for (std::size_t k = 0; k < mine.size(); ++k) removals[mine[k]] = removed[k];
    }
    for (std::size_t i = 0; i < doomed_.size(); ++i) {
      const StoreEntry* e = doomed_[i].entry;
      if (removals[i] == Removal::Gone) continue;
      if (removals[i] == Removal::Fresh) {
        ++report_.kept_young;
        continue;
      }
      report_.removed.push_back(
          {(doomed_[i].store->root() / e->relative).lexically_relative(ws_.top()).string(), e->size});
      report_.bytes_freed += e->size;
    }
  }

  // What gc kept and deleted, and why, for GIT_TRACE.
  void trace_decisions(std::size_t unstaged) const {
    const std::int64_t grace = options_.grace_seconds;
    JPBLOB_TRACE("gc: " + std::to_string(entries_.size()) + " blob files and " + std::to_string(kept_entries_.size()) +
                 " kept copies listed; the live set holds " + std::to_string(live_.digests.size()) + " blobs of " +
                 std::to_string(live_.documents) + " documents and staged versions");
    JPBLOB_TRACE("gc: keeps " + std::to_string(report_.kept_live - held_by_reflog_) + " referenced, " +
                 std::to_string(held_by_reflog_) + " only copies a reflog or unreachable commit references, " +
                 std::to_string(report_.kept_young) + " unreferenced but young (gc.pruneExpire or --prune: " +
                 (grace == INT64_MAX ? std::string("never") : std::to_string(grace) + " s") + ")");
    JPBLOB_TRACE("gc: deletes " + std::to_string(report_.removed.size()) + " files (" +
                 std::to_string(report_.bytes_freed) + " bytes; " + std::to_string(staged_kept_doomed_) +
                 " kept copies the index holds), unstages " + std::to_string(unstaged) + " index entries" +
                 (options_.dry_run ? " (--dry-run: nothing changed)" : ""));
    if (report_.packs_released)
      JPBLOB_TRACE("gc: hands " + std::to_string(report_.packs_released) +
                   " pending pack(s) back to git's gc: each blob git holds, or unreferenced and past the grace" +
                   (options_.dry_run ? " (--dry-run: nothing changed)" : ""));
  }

  const Workspace& ws_;
  const GcOptions& options_;
  const BlobStore& store_;
  // gc deletes by what the documents git holds reference: one whose object
  // file holds another's bytes would make its blobs look unreferenced.
  // Each object read is checked against its id (a tenth more time), and
  // such a file stops gc, naming it.
  const ObjectIdChecks id_checks_;
  const std::time_t now_ = ::time(nullptr);
  GcReport report_;
  std::vector<StoreEntry> entries_, kept_entries_;
  std::deque<StoreEntry> statted_;  // the candidates among both, with their age
  LiveSet live_;
  DigestSet staged_kept_;
  std::optional<DigestSet> reflogs_;  // built on first need
  std::vector<Doomed> doomed_;
  DigestSet present_;  // blobs with a work-tree file
  std::size_t held_by_reflog_ = 0;      // of report_.kept_live: only_copy_in_reflog
  std::size_t staged_kept_doomed_ = 0;  // of doomed_: kept copies the index holds
};

}  // namespace

std::string prune_expire(const Workspace& ws) {
  return ConfigReader::of(ws.repo()).get("gc.pruneExpire").value_or("2.weeks.ago");
}

GcReport run_gc(const Workspace& ws, const GcOptions& options, const Progress& progress) {
  return GcRun(ws, options).run(progress);
}

}  // namespace jpblob
