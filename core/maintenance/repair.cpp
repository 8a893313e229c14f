#include "core/maintenance/repair.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/git/git_cli.hpp"
#include "core/lean/kept_copies.hpp"
#include "core/lean/lean_tree.hpp"
#include "core/maintenance/live_set.hpp"
#include "core/base/parallel.hpp"
#include "core/store/agent_stores.hpp"

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
      {}, nullptr, /*skip_unchanged=*/false, DocumentHomes::WorkTrees);
  return found;
}

using DigestMap = std::unordered_map<Digest, std::string, DigestHash>;
using DigestSet = std::unordered_set<Digest, DigestHash>;

// One run of repair: what is corrupt or missing, where a good copy is, and
// writing and staging it again.
class RepairRun {
 public:
  explicit RepairRun(const Workspace& ws) : ws_(ws), store_(ws.new_blobs().home()) {}

  RepairReport run(const Progress& progress) {
    check_home(progress);
    if (ws_.lean()) check_index_copies();
    for (const Digest& d : build_live_set(ws_, {}).referenced)
      if (!present_.count(d)) missing_.insert(d);
    for (const Digest& d : missing_) corrupt_.emplace(d, "missing");
    if (ws_.in_work_tree()) find_unstaged_references();
    check_other_worktrees();
    if (corrupt_.empty() && stage_.empty() && elsewhere_.empty()) return report_;
    const DigestMap good = find_good_copies();
    write_good_copies(good);
    mend_other_worktrees(good);
    stage_again();
    return report_;
  }

 private:
  // A lean work tree holds no blob file (SPEC §2): its blobs not committed
  // yet are in the git folder (Workspace::new_blobs), checked and written
  // there, and staged from there.
  void check_home(const Progress& progress) {
    std::vector<StoreEntry> blobs;
    for (StoreEntry& e : store_.entries())
      if (e.kind == StoreEntry::Kind::Blob) blobs.push_back(std::move(e));
    report_.checked = blobs.size();
    std::atomic<std::size_t> done{0};
    parallel_for(blobs.size(), [&](std::size_t i) {
      try {
        store_.verify(*blobs[i].digest);
      } catch (const Error& e) {
        std::lock_guard lock(mutex_);
        corrupt_.emplace(*blobs[i].digest, e.what());
      }
      if (progress) progress("Verifying blobs", ++done, blobs.size());
    });
    // Referenced blobs missing from the store are written too, from the
    // same copies: what the hook and verify name as missing.
    for (const StoreEntry& e : blobs) present_.insert(*e.digest);
    // A lean tree's new blobs in pending packs (core/lean/pending_packs),
    // checked as git gives them.
    if (!ws_.lean() || !ws_.kept()) return;
    const PendingPacks& pending = ws_.kept()->pending();
    for (const PendingPacks::Pack& pack : pending.packs())
      for (const auto& [digest, id] : pack.blobs) {
        if (present_.count(digest)) continue;
        ++report_.checked;
        try {
          if (pending.fetch(digest, std::nullopt)) present_.insert(digest);
        } catch (const Error& e) {
          corrupt_.emplace(digest, e.what());
        }
      }
  }

  // A lean work tree (core/lean/lean_tree) keeps committed blobs in the
  // index only: their copies there are the store's, checked the same way.
  void check_index_copies() {
    std::vector<std::pair<Digest, std::string>> held;  // digest, object id
    for (IndexEntry& e : ws_.repo()->index_entries(kWorkTreeStore, GitRepo::Entries::SkipWorktree))
      if (auto d = digest_of_tracked_path(e.path); d && !present_.count(*d)) held.emplace_back(*d, std::move(e.id));
    report_.checked += held.size();
    std::mutex git_mutex;  // libgit2 reads one at a time; the checks on every core
    parallel_for(held.size(), [&](std::size_t i) {
      const auto& [digest, id] = held[i];
      const std::string what = tracked_blob_path(digest) + " (index)";
      std::optional<std::string> raw;
      {
        std::lock_guard lock(git_mutex);
        raw = ws_.repo()->read_object(id);
      }
      try {
        if (!raw) throw Error("blob " + what + " is missing from git's objects");
        if (!is_lfs_pointer(*raw)) check_blob(*raw, digest, std::nullopt, store_.options().max_blob_size, what);
        std::lock_guard lock(mutex_);
        present_.insert(digest);
      } catch (const Error& e) {
        std::lock_guard lock(mutex_);
        corrupt_.emplace(digest, e.what());
        in_index_.insert(digest);
      }
    });
  }

  // Blobs a staged document references that this index lacks, though the
  // store has a sound file: a commit made without the hook left them out,
  // and the hook stages only what a commit changes. Staged here, so that
  // the next commit (or `commit --amend`) holds them.
  void find_unstaged_references() {
    std::unordered_set<std::string> indexed;
    for (IndexEntry& e : GitCli(ws_.top()).index_entries({literal_pathspec(kWorkTreeStore)}))
      indexed.insert(std::move(e.path));
    std::set<std::string> unstaged;
    for_each_document(
        ws_,
        [&](const DocumentRef& doc, const std::string& text) {
          if (doc.origin != DocumentOrigin::Index) return;
          const DocumentNeeds needs = document_needs(doc.kind, text, 0, InputForm::Committed);  // the index's
          std::lock_guard lock(mutex_);
          for (const BlobUse& r : needs.references)
            if (!indexed.count(tracked_blob_path(r.digest)) && present_.count(r.digest) && !corrupt_.count(r.digest))
              unstaged.insert(tracked_blob_path(r.digest));
        },
        {});
    stage_.assign(unstaged.begin(), unstaged.end());
    for (const std::string& path : stage_) report_.repaired.push_back(path + " (staged)");
  }

  // Linked worktrees that check their store out hold blob files of their
  // own: one corrupted in place there (a link to the kept copy, which the
  // home's mend wrote anew) is mended from here too, or that worktree's
  // commit stays refused until repair runs there.
  void check_other_worktrees() {
    if (!ws_.in_work_tree()) return;
    for (const fs::path& wt : GitCli(ws_.top()).worktrees()) {
      std::error_code ec;
      if (!fs::exists(wt, ec) || fs::equivalent(wt, ws_.top(), ec)) continue;
      try {
        auto store = std::make_unique<BlobStore>(BlobStore::for_work_tree(wt, store_.options()));
        for (const StoreEntry& e : store->entries()) {
          if (e.kind != StoreEntry::Kind::Blob) continue;
          ++report_.checked;
          try {
            store->verify(*e.digest);
          } catch (const Error& err) {
            elsewhere_[*e.digest].push_back(store.get());
          }
        }
        others_.push_back(std::move(store));
      } catch (const Error&) {
        continue;  // a store refused as a link: that worktree's own commands say so
      }
    }
  }

  void mend_other_worktrees(const DigestMap& good) {
    for (const auto& [digest, stores] : elsewhere_)
      for (const BlobStore* store : stores) {
        const std::string path = store->path_of(digest).string();
        const auto bytes = good.find(digest);
        if (bytes == good.end()) {
          report_.unrecoverable.push_back(path + ": no good copy in git's objects or in a work-tree document");
        } else if (store->replace_corrupt(digest, bytes->second)) {
          report_.repaired.push_back(path);
        }
      }
  }

  // A good copy of each corrupt or missing blob: git's objects first, then
  // the inline payloads of the work tree's documents.
  DigestMap find_good_copies() const {
    DigestMap good;
    DigestMap wanted = corrupt_;
    for (const auto& [digest, stores] : elsewhere_) wanted.emplace(digest, "corrupt in a linked worktree");
    for (const auto& [digest, why] : wanted) {
      try {
        if (auto bytes = ws_.blobs().find_in_git(digest, std::nullopt, std::nullopt))
          good.emplace(digest, std::move(*bytes));
      } catch (const Error&) {
        // every copy git holds is corrupt too (a commit made it so): the
        // documents may still hold the bytes
      }
    }
    DigestMap rest;
    for (const auto& [digest, why] : wanted)
      if (!good.count(digest)) rest.emplace(digest, why);
    if (!rest.empty())
      for (auto& [digest, bytes] : from_documents(ws_, rest)) good.emplace(digest, std::move(bytes));
    // Last, an agent's own store (core/store/agent_stores): oh-my-pi keeps
    // every image of its sessions there.
    std::optional<AgentBlobStores> agents;
    for (const auto& [digest, why] : rest) {
      if (good.count(digest)) continue;
      if (!agents) agents = AgentBlobStores::from_environment();
      if (auto bytes = agents->fetch(digest, store_.options().max_blob_size)) good.emplace(digest, std::move(*bytes));
    }
    return good;
  }

  void write_good_copies(const DigestMap& good) {
    // The missing ones are stored together (put_all: a sync a chunk, where
    // a put each took 21 s for 2,000 blobs taken from oh-my-pi's store).
    std::vector<std::string_view> missing;
    for (const auto& [digest, why] : corrupt_) {
      const std::string path = ws_.lean() ? tracked_blob_path(digest)
                                          : store_.path_of(digest).lexically_relative(ws_.top()).string();
      const auto bytes = good.find(digest);
      if (bytes == good.end()) {
        report_.unrecoverable.push_back(path + ": no good copy in git's objects, a work-tree document or " +
                                        "oh-my-pi's blob store (" + why + ")");
        continue;
      }
      if (in_index_.count(digest)) {
        // The index's copy is corrupt: the good one is written and staged
        // in its place, then leaves the work tree again.
        ws_.new_blobs().replace_corrupt(digest, bytes->second);
        restage_.push_back(tracked_blob_path(digest));
      } else if (missing_.count(digest)) {
        // Staged too: a commit made without the hook (`--no-verify`, a
        // merge a driver cleaned) lacks it, and in a lean tree `git add`
        // refuses a path outside the sparse patterns. The next commit then
        // holds it.
        missing.push_back(bytes->second);
        if (ws_.in_work_tree()) stage_.push_back(tracked_blob_path(digest));
      } else {
        ws_.new_blobs().replace_corrupt(digest, bytes->second);
      }
      report_.repaired.push_back(path);
    }
    if (missing.empty()) return;
    ws_.new_blobs().put_all(missing);
    ws_.new_blobs().finish();  // outside a lean tree, links the kept copies
  }

  void stage_again() {
    if (restage_.empty() && stage_.empty()) return;
    const GitCli git(ws_.top());
    if (!ws_.lean()) git.set_skip_worktree(restage_, false);  // git looks at no file behind the bit
    restage_.insert(restage_.end(), stage_.begin(), stage_.end());
    if (!ws_.lean()) {
      git.add_many_to_index(restage_, store_.options().max_file_size());
      return;
    }
    std::vector<GitCli::OutOfTree> entries;
    std::vector<Digest> staged;
    for (const std::string& path : restage_) {
      staged.push_back(*digest_of_tracked_path(path));
      const fs::path file = fs::absolute(store_.path_of(staged.back()));
      std::optional<std::string> id;
      std::error_code ec;
      if (!fs::exists(file, ec) && ws_.kept()) id = ws_.kept()->pending().staged_id(staged.back());
      entries.push_back(id ? GitCli::OutOfTree{path, {}, *id, true} : GitCli::OutOfTree{path, file.string(), {}});
    }
    git.stage_out_of_tree(std::move(entries), store_.options().max_file_size());
    if (ws_.kept()) ws_.kept()->drop_staged(git, staged);  // the index holds them now
  }

  const Workspace& ws_;
  const BlobStore& store_;
  RepairReport report_;
  std::mutex mutex_;
  DigestMap corrupt_;  // digest -> why
  DigestSet present_;
  DigestSet in_index_;  // corrupt there: staged again once mended
  DigestSet missing_;
  std::vector<std::string> stage_;    // tracked paths of blobs staged for the first time
  std::vector<std::string> restage_;  // tracked paths, corrupt in the index
  std::vector<std::unique_ptr<BlobStore>> others_;  // the stores of the other worktrees
  std::unordered_map<Digest, std::vector<const BlobStore*>, DigestHash> elsewhere_;  // corrupt there
};

}  // namespace

RepairReport run_repair(const Workspace& ws, const Progress& progress) { return RepairRun(ws).run(progress); }

}  // namespace jpblob
