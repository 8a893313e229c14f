#include "core/maintenance/repair.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/git/git_cli.hpp"
#include "core/workspace/kept.hpp"
#include "core/workspace/lean.hpp"
#include "core/maintenance/live_set.hpp"
#include "core/base/parallel.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

// The bytes of the inline payloads of work-tree documents whose digest is
// among `wanted`, stored by cleaning each such document into a throwaway
// store: the one place that knows how to decode a payload is clean.
std::unordered_map<Digest, std::string, DigestHash> from_documents(
    const Workspace& ws, const std::unordered_map<Digest, std::string, DigestHash>& wanted) {
  std::unordered_map<Digest, std::string, DigestHash> found;
  std::mutex mutex;
  const ScratchDir scratch_dir("repair");
  const fs::path& scratch = scratch_dir.path();
  StoreOptions options = ws.settings().store;
  options.fsync = false;
  const BlobStore store = BlobStore::for_storage(scratch, scratch, options);
  for_each_document(
      ws,
      [&](const DocumentRef& doc, const std::string& text) {
        if (doc.origin != DocumentOrigin::WorkTree) return;
        const DocumentNeeds needs = document_needs(doc.kind, text, 0, form_of(ws, doc));
        bool useful = false;
        for (const auto& p : needs.inline_payloads) useful = useful || wanted.count(p.digest);
        if (!useful) return;
        // Only the payloads it stores count, and they are the same in
        // either form: wrapping or respelling a reference stores nothing.
        clean_document(doc.kind, text, store, ws.settings().clean_options(doc.what, InputForm::Committed),
                       [](std::string_view) {});
        for (const auto& p : needs.inline_payloads)
          if (wanted.count(p.digest))
            if (auto bytes = store.get(p.digest)) {
              std::lock_guard lock(mutex);
              found.emplace(p.digest, std::move(*bytes));
            }
      },
      {});
  return found;
}

}  // namespace

RepairReport run_repair(const Workspace& ws, const Progress& progress) {
  RepairReport report;
  // A lean work tree holds no blob file (SPEC §2): its blobs not committed
  // yet are in the git folder (Workspace::new_blobs), checked and written
  // there, and staged from there.
  const BlobStore& store = ws.in_work_tree() ? ws.new_blobs() : ws.store();
  std::vector<StoreEntry> blobs;
  for (StoreEntry& e : store.entries())
    if (e.kind == StoreEntry::Kind::Blob) blobs.push_back(std::move(e));
  report.checked = blobs.size();
  std::unordered_map<Digest, std::string, DigestHash> corrupt;  // digest -> why
  std::mutex mutex;
  std::atomic<std::size_t> done{0};
  parallel_for(blobs.size(), [&](std::size_t i) {
    try {
      store.verify(*blobs[i].digest);
    } catch (const Error& e) {
      std::lock_guard lock(mutex);
      corrupt.emplace(*blobs[i].digest, e.what());
    }
    if (progress) progress("Verifying blobs", ++done, blobs.size());
  });
  // Referenced blobs missing from the store are written too, from the
  // same copies: what the hook and verify name as missing.
  std::unordered_set<Digest, DigestHash> present;
  for (const StoreEntry& e : blobs) present.insert(*e.digest);
  // A lean work tree (core/workspace/lean) keeps committed blobs in the index only:
  // their copies there are the store's, checked the same way.
  std::unordered_set<Digest, DigestHash> in_index;  // corrupt there: staged again once mended
  if (ws.lean()) {
    std::vector<std::pair<Digest, std::string>> held;  // digest, object id
    for (IndexEntry& e : ws.repo()->index_entries(kWorkTreeStore, GitRepo::Entries::SkipWorktree))
      if (auto d = digest_of_tracked_path(e.path); d && !present.count(*d)) held.emplace_back(*d, std::move(e.id));
    report.checked += held.size();
    std::mutex git_mutex;  // libgit2 reads one at a time; the checks on every core
    parallel_for(held.size(), [&](std::size_t i) {
      const auto& [digest, id] = held[i];
      const std::string what = tracked_blob_path(digest) + " (index)";
      std::optional<std::string> raw;
      {
        std::lock_guard lock(git_mutex);
        raw = ws.repo()->read_object(id);
      }
      try {
        if (!raw) throw Error("blob " + what + " is missing from git's objects");
        if (!is_lfs_pointer(*raw)) check_blob(*raw, digest, std::nullopt, store.options().max_blob_size, what);
        std::lock_guard lock(mutex);
        present.insert(digest);
      } catch (const Error& e) {
        std::lock_guard lock(mutex);
        corrupt.emplace(digest, e.what());
        in_index.insert(digest);
      }
    });
  }
  std::unordered_set<Digest, DigestHash> missing;
  for (const Digest& d : build_live_set(ws, {}).referenced)
    if (!present.count(d)) missing.insert(d);
  for (const Digest& d : missing) corrupt.emplace(d, "missing");
  // Blobs a staged document references that this index lacks, though the
  // store has a sound file: a commit made without the hook left them out,
  // and the hook stages only what a commit changes. Staged here, so that
  // the next commit (or `commit --amend`) holds them.
  std::vector<std::string> stage;  // tracked paths of blobs staged for the first time
  if (ws.in_work_tree()) {
    std::unordered_set<std::string> indexed;
    for (IndexEntry& e : GitCli(ws.top()).index_entries({literal_pathspec(kWorkTreeStore)}))
      indexed.insert(std::move(e.path));
    std::set<std::string> unstaged;
    for_each_document(
        ws,
        [&](const DocumentRef& doc, const std::string& text) {
          if (doc.origin != DocumentOrigin::Index) return;
          const DocumentNeeds needs = document_needs(doc.kind, text, 0, InputForm::Committed);  // the index's
          std::lock_guard lock(mutex);
          for (const BlobUse& r : needs.references)
            if (!indexed.count(tracked_blob_path(r.digest)) && present.count(r.digest) && !corrupt.count(r.digest))
              unstaged.insert(tracked_blob_path(r.digest));
        },
        {});
    stage.assign(unstaged.begin(), unstaged.end());
    for (const std::string& path : stage) report.repaired.push_back(path + " (staged)");
  }
  if (corrupt.empty() && stage.empty()) return report;

  std::unordered_map<Digest, std::string, DigestHash> good;
  for (const auto& [digest, why] : corrupt) {
    try {
      if (auto bytes = ws.blobs().find_in_git(digest, std::nullopt, std::nullopt))
        good.emplace(digest, std::move(*bytes));
    } catch (const Error&) {
      // every copy git holds is corrupt too (a commit made it so): the
      // documents may still hold the bytes
    }
  }
  std::unordered_map<Digest, std::string, DigestHash> rest;
  for (const auto& [digest, why] : corrupt)
    if (!good.count(digest)) rest.emplace(digest, why);
  if (!rest.empty())
    for (auto& [digest, bytes] : from_documents(ws, rest)) good.emplace(digest, std::move(bytes));

  std::vector<std::string> restage;  // tracked paths, corrupt in the index
  for (const auto& [digest, why] : corrupt) {
    const std::string path = ws.lean() ? tracked_blob_path(digest)
                                       : store.path_of(digest).lexically_relative(ws.top()).string();
    const auto bytes = good.find(digest);
    if (bytes == good.end()) {
      report.unrecoverable.push_back(path + ": no good copy in git's objects or in a work-tree document (" + why + ")");
      continue;
    }
    if (in_index.count(digest)) {
      // The index's copy is corrupt: the good one is written and staged in
      // its place, then leaves the work tree again.
      store.replace_corrupt(digest, bytes->second);
      restage.push_back(tracked_blob_path(digest));
    } else if (missing.count(digest)) {
      // Staged too: a commit made without the hook (`--no-verify`, a merge
      // a driver cleaned) lacks it, and in a lean tree `git add` refuses a
      // path outside the sparse patterns. The next commit then holds it.
      store.put(digest, bytes->second);
      if (ws.in_work_tree()) stage.push_back(tracked_blob_path(digest));
    } else {
      store.replace_corrupt(digest, bytes->second);
    }
    report.repaired.push_back(path);
  }
  if (!restage.empty() || !stage.empty()) {
    const GitCli git(ws.top());
    if (!ws.lean()) git.set_skip_worktree(restage, false);  // git looks at no file behind the bit
    restage.insert(restage.end(), stage.begin(), stage.end());
    if (ws.lean()) {
      std::vector<GitCli::OutOfTree> entries;
      std::vector<Digest> staged;
      for (const std::string& path : restage) {
        staged.push_back(*digest_of_tracked_path(path));
        entries.push_back({path, fs::absolute(store.path_of(staged.back())).string(), {}});
      }
      git.stage_out_of_tree(std::move(entries), store.options().max_file_size());
      drop_kept_copies(ws, git, staged);  // the index holds them now
    } else {
      git.add_many_to_index(restage, store.options().max_file_size());
    }
  }
  return report;
}

}  // namespace jpblob
