#include "core/maintenance/verify.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/subprocess.hpp"
#include "core/maintenance/commit_check.hpp"
#include "core/maintenance/index_blobs.hpp"
#include "core/maintenance/live_set.hpp"
#include "core/base/parallel.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

// Each commit's documents against that commit's own tree: a reference
// whose blob the commit lacks, or holds with other bytes, breaks every
// checkout of it; a document the commit changed without the filter
// (core/maintenance/unfiltered) is named too. Work is cached by object id,
// so a blob or document shared by many commits is read once.
void verify_history(const Workspace& ws, const std::vector<std::string>& revisions, VerifyReport& report,
                    const Progress& progress) {
  const GitCli git(ws.repo()->workdir() ? *ws.repo()->workdir() : ws.repo()->gitdir());
  std::vector<std::string> args = {"--parents"};
  if (revisions.empty()) {
    args.push_back("--all");
  } else {
    args.push_back("--end-of-options");
    args.insert(args.end(), revisions.begin(), revisions.end());
  }
  const std::vector<std::string> lines = git.rev_list(args);
  // jpblob.minSize where a commit has no .jpblobconfig: the personal one,
  // not the work tree's shared file.
  CommitChecker checker(*ws.repo(), git, ws.store().options().max_blob_size, load_settings(ws.repo()).min_size);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::vector<std::string> ids;  // the commit, then its parents
    for (const std::string_view id : split_fields(lines[i]))
      if (!id.empty()) ids.emplace_back(id);
    if (ids.empty()) continue;
    const std::vector<std::string> parents(ids.begin() + 1, ids.end());
    checker.check(ids[0], report.references, report.problems, &parents);
    ++report.commits;
    if (progress) progress("Checking history", i + 1, lines.size());
  }
  // As a push is judged (core/maintenance/push_check): a document that no
  // ref (or end of the range) still holds unfiltered is history, mended by
  // a later commit, not a problem.
  checker.drop_mended(report.problems, git.included_revisions(revisions));
}

// What verify learns of the blobs before it reads any document: the
// references are resolved against it.
struct KnownBlobs {
  std::vector<StoreEntry> files;  // the store's blob files
  // Every blob found: the store's, those only in git's objects, kept
  // copies and other worktrees' stores.
  std::unordered_set<Digest, DigestHash> present;
  std::unordered_map<Digest, std::uint64_t, DigestHash> sizes;  // of the blobs verified
  std::unordered_set<Digest, DigestHash> staged;  // by their tracked paths' digests, in any worktree
};

// The store's blob files, each also in `known.present`.
void list_store_blobs(const Workspace& ws, KnownBlobs& known, VerifyReport& report) {
  const BlobStore& store = ws.store();
  for (StoreEntry& e : store.entries()) {
    if (e.kind == StoreEntry::Kind::Blob) {
      known.present.insert(*e.digest);
      known.files.push_back(std::move(e));
    } else if (e.symlink) {
      // Never followed, so never read as a blob: but a link in the store
      // is planted, not made by git-jpblob, and a commit of it would reach
      // every clone.
      report.problems.push_back({ProblemKind::SymbolicLink,
                                 "refusing " + (store.root() / e.relative).lexically_relative(ws.top()).string() +
                                     ": it is a symbolic link (git-jpblob never follows links inside a repository)"});
    }
  }
  report.blobs = known.files.size();
}

// 1. Every blob file: gzip, CRC and ISIZE, SHA-256 against its name.
void verify_blob_files(const BlobStore& store, KnownBlobs& known, VerifyReport& report,
                       const Progress& progress) {
  std::mutex mutex;
  std::atomic<std::size_t> done{0};
  parallel_for(known.files.size(), [&](std::size_t i) {
    const Digest& digest = *known.files[i].digest;
    std::string problem;
    std::optional<std::uint64_t> size;
    try {
      size = store.verify(digest);  // nullopt: deleted since the listing, a gc ran
    } catch (const Error& e) {
      problem = e.what();
    }
    std::lock_guard lock(mutex);
    if (size) known.sizes[digest] = *size;
    if (!problem.empty()) report.problems.push_back({ProblemKind::CorruptBlob, problem});
    if (progress) progress("Verifying blobs", ++done, known.files.size());
  });
}

// 1a. Every blob the index holds with no file here (a lean work tree's
// committed blobs), read from git's objects and checked the same way.
// Returns those blobs, which step 3 lists when nothing needs them.
std::vector<IndexBlob> verify_index_only_blobs(const Workspace& ws, KnownBlobs& known, VerifyReport& report) {
  std::vector<IndexBlob> in_git = index_only_blobs(ws, known.present, true);
  const std::vector<IndexBlobCheck> in_git_checks = check_index_blobs(ws, in_git);
  for (std::size_t i = 0; i < in_git.size(); ++i) {
    const IndexBlobCheck& c = in_git_checks[i];
    if (!c.size && c.problem.empty()) continue;  // not in this clone's objects: a partial clone
    ++report.blobs;
    known.present.insert(in_git[i].digest);
    if (c.size) known.sizes[in_git[i].digest] = *c.size;
    if (!c.problem.empty()) report.problems.push_back({ProblemKind::CorruptBlob, c.problem});
  }
  return in_git;
}

// 1b. Every kept copy (docs/lean.md, "Kept copies"): after a
// stash or a `git clean` it can be the only copy of a blob not committed
// yet, and smudge reads it. A link to a blob file checked above holds
// the same bytes, so it is not read twice.
void verify_kept_copies(const BlobStore& kept, KnownBlobs& known, VerifyReport& report) {
  std::unordered_map<Digest, std::pair<std::uint64_t, std::uint64_t>, DigestHash> checked;
  for (const StoreEntry& e : known.files)
    if (known.sizes.count(*e.digest)) checked.emplace(*e.digest, std::pair{e.device, e.inode});
  std::vector<Digest> copies;
  for (const StoreEntry& e : kept.entries()) {
    if (e.kind != StoreEntry::Kind::Blob) continue;
    known.present.insert(*e.digest);
    const auto same = checked.find(*e.digest);
    if (same != checked.end() && same->second == std::pair{e.device, e.inode}) continue;
    copies.push_back(*e.digest);
  }
  report.kept = copies.size();
  std::mutex mutex;
  parallel_for(copies.size(), [&](std::size_t i) {
    try {
      kept.verify(copies[i]);
    } catch (const Error& e) {
      std::lock_guard lock(mutex);
      report.problems.push_back({ProblemKind::CorruptBlob, std::string("kept copy: ") + e.what()});
    }
  });
}

// 1c. Every new blob written into git's objects as a pending pack
// (core/lean/pending_packs): read through its record and checked as a
// kept copy is. A record whose object is gone names nothing present.
void verify_pending_blobs(const PendingPacks& pending, KnownBlobs& known, VerifyReport& report) {
  std::vector<Digest> blobs;
  for (const PendingPacks::Pack& p : pending.packs())
    for (const auto& [digest, id] : p.blobs) blobs.push_back(digest);
  std::mutex mutex;
  parallel_for(blobs.size(), [&](std::size_t i) {
    std::string problem;
    bool found = false;
    try {
      found = pending.fetch(blobs[i], std::nullopt).has_value();
    } catch (const Error& e) {
      problem = std::string("pending pack: ") + e.what();
    }
    std::lock_guard lock(mutex);
    if (found) {
      known.present.insert(blobs[i]);
      ++report.kept;
    }
    if (!problem.empty()) report.problems.push_back({ProblemKind::CorruptBlob, problem});
  });
}

// A reference resolves when its blob is in the store or staged, in any
// worktree: documents are read from every worktree, so blobs are looked
// for in every one too.
void find_blobs_of_other_worktrees(const Workspace& ws, KnownBlobs& known) {
  if (!ws.in_work_tree()) return;
  for (const fs::path& wt : GitCli(ws.top()).worktrees()) {
    std::error_code ec;
    if (!fs::exists(wt, ec)) continue;
    for (const IndexEntry& e : GitCli(wt).index_entries({literal_pathspec(kWorkTreeStore)}))
      if (const auto digest = digest_of_tracked_path(e.path)) known.staged.insert(*digest);
    if (fs::equivalent(wt, ws.top(), ec)) continue;
    for (const StoreEntry& e : BlobStore::for_work_tree(wt, ws.store().options()).entries())
      if (e.kind == StoreEntry::Kind::Blob) known.present.insert(*e.digest);
  }
}

// 2. Every reference in the work tree and the index resolves. Returns
// every blob a document needs.
std::unordered_set<Digest, DigestHash> check_references(const Workspace& ws, const KnownBlobs& known,
                                                        VerifyReport& report, const Progress& progress) {
  std::mutex mutex;
  std::unordered_set<Digest, DigestHash> live;
  std::set<std::pair<std::string, Digest>> noted;  // by path: a work-tree file and its staged version once
  for_each_document(
      ws,
      [&](const DocumentRef& doc, const std::string& text) {
        const DocumentNeeds needs = document_needs(doc.kind, text, 0, form_of(ws, doc));
        std::lock_guard lock(mutex);
        if (needs.unreadable) {
          report.problems.push_back({ProblemKind::Unreadable, doc.what + " is " + *needs.unreadable});
          return;
        }
        for (const auto& p : needs.inline_payloads) live.insert(p.digest);
        live.insert(needs.in_literals.begin(), needs.in_literals.end());  // kept, not required
        if (doc.origin != DocumentOrigin::Pending && doc.origin != DocumentOrigin::Stashed)
          for (const Digest& d : needs.in_literals)
            if (!known.staged.count(d) && !known.present.count(d) && noted.emplace(doc.path, d).second)
              report.notes.push_back(doc.what + " names blob " + d.hex() +
                                     " in the agent's own data, which no copy holds: kept as written, not required");
        for (const auto& r : needs.references) {
          live.insert(r.digest);
          // A stash entry or an operation in progress keeps its blobs,
          // but its own commits may hold them: not checked here.
          if (doc.origin == DocumentOrigin::Pending || doc.origin == DocumentOrigin::Stashed) continue;
          ++report.references;
          const auto size = known.sizes.find(r.digest);
          if (size != known.sizes.end()) {
            if (r.size && size->second != *r.size)
              report.problems.push_back({ProblemKind::CorruptBlob, "blob " + r.digest.hex() + " referenced by " +
                                                                       doc.what + " holds " + std::to_string(size->second) +
                                                                       " bytes, the reference declares " +
                                                                       std::to_string(*r.size)});
          } else if (!known.staged.count(r.digest) && !known.present.count(r.digest)) {
            report.problems.push_back(
                {ProblemKind::MissingBlob, "blob " + r.digest.hex() + " referenced by " + doc.what + " is missing"});
          }
        }
      },
      progress, nullptr, /*skip_unchanged=*/true);
  std::sort(report.notes.begin(), report.notes.end());
  return live;
}

// 3. Blobs nothing needs: gc candidates.
void list_unreferenced(const Workspace& ws, const KnownBlobs& known, const std::vector<IndexBlob>& in_git,
                       const std::unordered_set<Digest, DigestHash>& live, VerifyReport& report) {
  for (const StoreEntry& e : known.files)
    if (!live.count(*e.digest))
      report.unreferenced.push_back((ws.store().root() / e.relative).lexically_relative(ws.top()).string());
  for (const IndexBlob& b : in_git)
    if (!live.count(b.digest)) report.unreferenced.push_back(b.path);
  std::sort(report.unreferenced.begin(), report.unreferenced.end());
}

}  // namespace

VerifyReport run_verify(const Workspace& ws, bool history, const Progress& progress,
                        const std::vector<std::string>& revisions) {
  // An object file that holds another object's bytes is named, not read
  // as the document it stands for.
  const ObjectIdChecks id_checks;
  VerifyReport report;
  KnownBlobs known;
  list_store_blobs(ws, known, report);
  verify_blob_files(ws.store(), known, report, progress);
  const std::vector<IndexBlob> in_git = verify_index_only_blobs(ws, known, report);
  if (ws.kept()) {
    verify_kept_copies(ws.kept()->store(), known, report);
    verify_pending_blobs(ws.kept()->pending(), known, report);
  }
  find_blobs_of_other_worktrees(ws, known);
  const std::unordered_set<Digest, DigestHash> live = check_references(ws, known, report, progress);
  list_unreferenced(ws, known, in_git, live, report);
  if (history && ws.repo()) verify_history(ws, revisions, report, progress);
  return report;
}

}  // namespace jpblob
