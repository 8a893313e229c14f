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
#include "core/git/blob_pack.hpp"
#include "core/git/git_cli.hpp"
#include "core/workspace/kept.hpp"
#include "core/workspace/needs_log.hpp"
#include "core/maintenance/live_set.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

using DigestSet = std::unordered_set<Digest, DigestHash>;

// Blobs referenced by a document in a commit some reflog names (in any
// worktree): the way back to them is `git reset HEAD@{n}` and the like.
// Only asked for blobs that no git object holds, so usually never built.
// A version the live set has read is skipped: what it references is live
// already, so never a candidate (most reflog commits share most of their
// documents with the index).
DigestSet reflog_references(const Workspace& ws, const LiveSet& live) {
  DigestSet out;
  std::unordered_set<std::string> commits, documents;
  const GitCli git(ws.top());
  std::vector<fs::path> worktrees = git.worktrees();
  for (const fs::path& wt : worktrees) {
    std::error_code ec;
    if (!fs::exists(wt, ec)) continue;
    for (auto& c : GitCli(wt).rev_list({"--no-walk", "--reflog"})) commits.insert(std::move(c));
  }
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

}  // namespace

GcReport run_gc(const Workspace& ws, const GcOptions& options, const Progress& progress) {
  // gc deletes by what the documents git holds reference: one whose object
  // file holds another's bytes would make its blobs look unreferenced.
  // Each object read is checked against its id (a tenth more time), and
  // such a file stops gc, naming it.
  const ObjectIdChecks id_checks;
  GcReport report;
  report.dry_run = options.dry_run;
  const std::time_t now = ::time(nullptr);
  const BlobStore& store = ws.store();
  // List first, then gather: a blob written after the listing is not a
  // candidate at all, and one written before it is either in the live set
  // or young enough for the grace period.
  // Both homes are listed by name: nearly every blob is live, and a stat of
  // each cost 0.3 s for 100,000 (more when the inodes are not cached, and
  // `find` lists the same folders without them). Only the candidates are
  // stat-ed, after the live set is built.
  const std::vector<StoreEntry> entries = store.entries_by_name();
  const std::vector<StoreEntry> kept = ws.kept() ? ws.kept()->entries_by_name() : std::vector<StoreEntry>{};
  std::deque<StoreEntry> statted;  // the candidates among both, with their age
  const LiveSet live = build_live_set(ws, progress);
  report.conversations = live.document_paths.size();
  // A kept copy whose blob the index holds byte for byte has done its job
  // (core/workspace/kept): what the pre-commit hook removes at each commit, left by
  // a commit that bypassed it or was refused after it.
  DigestSet staged_kept;
  if (ws.kept() && ws.repo()) {
    std::vector<Digest> candidates;
    for (const StoreEntry& e : kept)
      if (e.digest) candidates.push_back(*e.digest);
    // The index's blob entries in one listing (gc lists them again below
    // to unstage): a cat-file lookup per copy cost 0.4 s for 100,000.
    std::unordered_map<std::string, std::string> staged;
    for (IndexEntry& i : GitCli(ws.top()).index_entries({literal_pathspec(kWorkTreeStore)}))
      if (i.stage == 0) staged.emplace(std::move(i.path), std::move(i.id));
    // Not one a stash needs: that index may drop the blob again, and the
    // stash would then restore a conversation whose blob is nowhere.
    for (const Digest& d : kept_copies_held(ws, staged, candidates))
      if (!live.stashed.count(d)) staged_kept.insert(d);
  }
  std::optional<DigestSet> reflogs;  // built on first need

  struct Doomed {
    const BlobStore* store;
    const StoreEntry* entry;
  };
  std::vector<Doomed> doomed;
  DigestSet present;
  // The same rules for a work-tree file and a kept copy, except that a
  // kept copy of a live blob also goes once the index holds it.
  auto judge = [&](const BlobStore& from, const StoreEntry& e) {
    if (e.kind == StoreEntry::Kind::Foreign) return;  // not ours to judge
    const bool is_kept = &from != &store;
    if (e.digest && !is_kept) present.insert(*e.digest);
    if (is_kept && e.digest && staged_kept.count(*e.digest)) {
      doomed.push_back({&from, &e});
      return;
    }
    if (e.digest && live.digests.count(*e.digest)) {
      ++report.kept_live;
      return;
    }
    const bool old = options.grace_seconds != INT64_MAX && e.mtime + grace_of(e, options) <= now;
    if (!old) {
      ++report.kept_young;
      return;
    }
    // The only copy of a blob that a commit in a reflog references stays:
    // the way back to that commit needs it. Of the two questions, git's
    // objects are asked first (a file read and a hash) until a blob is
    // missing from them, which builds the reflog set; from then on the set
    // is asked first (a lookup), and git's objects only about its blobs.
    if (e.digest && ws.in_work_tree()) {
      bool only_copy_in_reflog;
      if (reflogs) {
        only_copy_in_reflog = reflogs->count(*e.digest) && !in_git_objects(ws, from, *e.digest);
      } else if (in_git_objects(ws, from, *e.digest)) {
        only_copy_in_reflog = false;
      } else {
        reflogs = reflog_references(ws, live);
        only_copy_in_reflog = reflogs->count(*e.digest) > 0;
      }
      if (only_copy_in_reflog) {
        ++report.kept_live;
        return;
      }
    }
    doomed.push_back({&from, &e});
  };
  for (const BlobStore* from : {&store, ws.kept()}) {
    if (!from) continue;
    const bool is_kept = from != &store;
    for (const StoreEntry& e : is_kept ? kept : entries) {
      // A live blob stays (a kept copy unless the index holds it): no stat
      // needed. Any other may be deleted, and is judged by its stat (a
      // link or folder named like a blob is Foreign then) and reported
      // with its size.
      if (e.digest && !(is_kept && staged_kept.count(*e.digest)) && live.digests.count(*e.digest)) {
        judge(*from, e);
      } else if (auto s = from->stat(e)) {
        judge(*from, statted.emplace_back(std::move(*s)));
      }
    }
  }

  // Tracked blobs nothing needs that have no file: in a lean work tree
  // every committed blob (skip-worktree: git's objects hold it, and the
  // commits that did keep it), else what a gc killed after deleting, by an
  // older version, left behind. Unstaging is their removal: the next
  // commit no longer holds them, and nothing is deleted that git cannot
  // give back. A lean tree's are reported like deleted files, with the
  // blob file's size, so gc says the same in both modes.
  std::vector<std::string> unstage;
  if (ws.in_work_tree()) {
    for (const IndexEntry& i : GitCli(ws.top()).index_entries({literal_pathspec(kWorkTreeStore)})) {
      const auto digest = digest_of_tracked_path(i.path);
      if (!digest || i.stage != 0 || present.count(*digest)) continue;
      if (live.digests.count(*digest)) {
        if (i.skip_worktree) ++report.kept_live;  // as its file would count
        continue;
      }
      unstage.push_back(i.path);
      if (!i.skip_worktree) continue;
      const std::uint64_t size = ws.repo()->object_size(i.id).value_or(0);
      report.removed.push_back({i.path, size});
      report.bytes_freed += size;
    }
  }
  // The filter's records for the hook (core/workspace/needs_log) are a
  // cache: those a commit never consumed (`--no-verify`) go here.
  if (!options.dry_run && ws.repo()) remove_needs_logs(list_needs_logs(needs_log_folder(ws.repo()->commondir())));
  // Kept folders a commit set aside whose deletion never ran (killed, or
  // no process could be started): every copy in them is staged.
  if (!options.dry_run && ws.repo()) report.retired_purged = purge_retired_copies(ws.repo()->commondir());
  // A pack the hook was writing when it was killed: never read by git,
  // and as large as what the commit staged.
  if (ws.repo())
    report.unfinished_packs = remove_unfinished_packs(ws.repo()->commondir() / "objects" / "pack", !options.dry_run);
  // Unstage first, then delete: a gc killed in between leaves untracked
  // orphans, which the next gc deletes.
  if (!options.dry_run && ws.in_work_tree()) {
    for (const Doomed& d : doomed)
      if (d.store == &store && d.entry->digest) unstage.push_back(tracked_blob_path(*d.entry->digest));
    GitCli(ws.top()).remove_from_index(unstage);
  }

  // Deleting is mostly waiting: where the file system discards each freed
  // block before unlink(2) returns (ext4 mounted with -o discard), one
  // deletion at a time left gc waiting on the disk for each blob in turn.
  // The deletions are independent, so several wait at once.
  std::vector<Removal> removals(doomed.size(), Removal::Removed);
  if (!options.dry_run) {
    for (const BlobStore* from : {&store, ws.kept()}) {
      std::vector<std::size_t> mine;
      std::vector<const StoreEntry*> theirs;
      for (std::size_t i = 0; i < doomed.size(); ++i)
        if (from && doomed[i].store == from) {
          mine.push_back(i);
          theirs.push_back(doomed[i].entry);
        }
      if (theirs.empty()) continue;
      const auto removed = from->remove_all(
          theirs,
          [&](std::size_t k) {
            // The age again, just before deleting: a clean may have used it.
            const StoreEntry& e = *theirs[k];
            // A kept copy the index holds goes whatever its age: nothing
            // ages into it, and git gives the blob back.
            const bool staged = from != &store && e.digest && staged_kept.count(*e.digest);
            return staged ? std::numeric_limits<std::time_t>::max() : ::time(nullptr) - grace_of(e, options);
          },
          kDiskWaiters);
      for (std::size_t k = 0; k < mine.size(); ++k) removals[mine[k]] = removed[k];
    }
  }
  for (std::size_t i = 0; i < doomed.size(); ++i) {
    const StoreEntry* e = doomed[i].entry;
    if (removals[i] == Removal::Gone) continue;
    if (removals[i] == Removal::Fresh) {
      ++report.kept_young;
      continue;
    }
    report.removed.push_back(
        {(doomed[i].store->root() / e->relative).lexically_relative(ws.top()).string(), e->size});
    report.bytes_freed += e->size;
  }
  sweep_temporaries(ws, options, now, live.temporaries, report);
  std::sort(report.removed.begin(), report.removed.end(),
            [](const GcReport::Removed& a, const GcReport::Removed& b) { return a.path < b.path; });
  return report;
}

}  // namespace jpblob
