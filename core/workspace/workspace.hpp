// Where a command finds its blob store, its git repository and its settings.
//
// A workspace is the folder a JP storage location lives in: normally the
// work tree of the git repository around the current folder (store
// <worktree>/.jp/blobs), or an explicit JP storage folder given with
// --store DIR (store DIR/blobs, for JP's user-local data). Settings come
// from git config, `git -c` included.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/base/safe_path.hpp"
#include "core/documents/render.hpp"
#include "core/documents/transform.hpp"
#include "core/git/git_repo.hpp"
#include "core/lean/kept_copies.hpp"
#include "core/lean/lean_tree.hpp"
#include "core/lean/new_blobs.hpp"
#include "core/store/blob_lookup.hpp"
#include "core/store/blob_store.hpp"
#include "core/workspace/committed_form.hpp"
#include "core/workspace/shared_config.hpp"

namespace jpblob {

struct Settings {
  StoreOptions store;  // jpblob.compressionLevel, jpblob.maxBlobSize, jpblob.fsync
  std::uint64_t min_size = 0;  // jpblob.minSize
  bool smudge_refs_only = false;  // jpblob.smudge=refs or JPBLOB_SKIP_SMUDGE=1
  bool refs_mode = false;         // jpblob.smudge=refs: the whole work tree in the committed form
  // jpblob.skipSmudgeErrors or JPBLOB_SKIP_SMUDGE_ERRORS=1: a file a
  // checkout cannot restore is left in its committed form, with a warning.
  bool skip_smudge_errors = false;
  // git's core.bigFileThreshold (any scope, `git -c` included): a payload
  // larger than this is never inflated for a display (textconv, `print`),
  // as git shows no such file's content.
  std::uint64_t big_file_threshold = kDefaultBigFileThreshold;
  // Why (part of) `.jpblobconfig` was ignored: one line each, for the
  // caller to show as a warning (core/ never prints).
  std::vector<std::string> warnings;

  // What the settings decide of clean and smudge for the file `path`:
  // every caller of the transforms builds its options here.
  CleanOptions clean_options(std::string path, InputForm form) const {
    CleanOptions o;
    o.form = form;
    o.min_size = min_size;
    o.max_file_size = store.max_blob_size;
    o.path = std::move(path);
    return o;
  }
  SmudgeOptions smudge_options(std::string path) const {
    SmudgeOptions o;
    o.max_file_size = store.max_blob_size;
    o.path = std::move(path);
    return o;
  }
};

// Reads the settings from a repository's config (or only from `git -c` and
// the environment when there is none); the keys that change committed
// bytes come from `.jpblobconfig` at the top of `work_tree` when it sets
// them (apply_shared_settings). Throws Error on a malformed personal value,
// naming the key; never for `.jpblobconfig`.
Settings load_settings(const GitRepo* repo, const SafeDir* work_tree = nullptr);

// Lets `.jpblobconfig` at the top of `work_tree` decide the keys that change
// committed bytes (core/workspace/shared_config) over what `s` holds. The
// file is someone else's: a file that cannot be read or parsed, or a value
// that does not parse, leaves the value in `s`, with one line in
// `s.warnings` naming the file (and the key or line). Never throws.
void apply_shared_settings(Settings& s, const SafeDir& work_tree);

// The same for what a `.jpblobconfig` already read says (shared_config_of
// of a committed file's bytes). Never throws.
void apply_shared_config(Settings& s, SharedConfig shared);

// Whether a command reads `.jpblobconfig` when its workspace opens. Only
// what cleans, or counts what clean would store, needs it: smudge and
// textconv never read it, so a bad shared file cannot touch a checkout.
enum class SharedSettings { Read, Later };

class Workspace {
 public:
  // Opens the workspace for a command run in `cwd`. Throws Error when the
  // store would resolve outside its boundary. With no git repository
  // around `cwd` and no `store_dir`, the store (cwd/.jp/blobs) is read-only:
  // anything that would write a blob to it throws "…: not in a git
  // repository; pass --store <folder>" (see BlobStore::refuse_writes).
  // With SharedSettings::Later the settings are the personal ones until
  // read_shared_settings().
  static Workspace open(const std::filesystem::path& cwd,
                        const std::optional<std::filesystem::path>& store_dir = std::nullopt,
                        SharedSettings shared = SharedSettings::Read);
  // Lets `.jpblobconfig` decide its keys now (apply_shared_settings), for a
  // workspace opened with SharedSettings::Later; once, later calls do
  // nothing. Returns the warnings it gave. Not while a clean runs; smudges
  // may (they read none of its keys).
  std::vector<std::string> read_shared_settings();
  // Makes the kept copies this command's writes left pending
  // (NewBlobs::finish). Throws Error on failure; each blob file
  // itself is stored already, so callers report it as a warning. The
  // filters call it when git is done with them.
  void finish() const;
  // Calls finish() for a command that did not, ignoring a failure: there
  // is no one to tell then.
  ~Workspace();
  Workspace(Workspace&&) = default;
  Workspace& operator=(Workspace&&) = default;

  const BlobStore& store() const { return *store_; }
  // Where clean writes the blobs it stores (core/lean/new_blobs): the
  // store, except in a lean work tree, where no blob file is ever in the
  // work tree (SPEC §2): there new blobs live in the git folder (kept())
  // until the pre-commit hook stages them from there.
  const NewBlobs& new_blobs() const { return *new_blobs_; }
  // Kept copies of the blobs clean writes (core/lean/kept_copies), in a
  // lean work tree the only home of the blobs not committed yet; null
  // outside a work tree.
  const KeptCopies* kept() const { return kept_.get(); }
  // The parts a lean work tree's moves need (core/lean/lean_tree). Only in
  // a work tree (in_work_tree()).
  LeanParts lean_parts() const { return {*repo_, *store_, kept_.get()}; }
  const GitRepo* repo() const { return repo_.get(); }
  const Settings& settings() const { return settings_; }
  // The folder paths in messages are relative to.
  const std::filesystem::path& top() const { return top_; }
  // True when the store is the one in the repository's work tree (not a
  // --store folder, not a bare repository): its blobs have index entries
  // and tracked paths.
  bool in_work_tree() const { return in_work_tree_; }
  // True when this work tree is lean (core/lean/lean_tree): committed blobs in git's
  // objects only. Asked once, when opened.
  bool lean() const { return lean_; }
  // True when clean's new blobs live in the git folder until the hook
  // stages them: a lean tree, or one send_new_blobs_to_git_folder() sent.
  bool new_blobs_in_git_folder() const { return new_blobs_in_git_folder_; }
  // True when the pre-commit hook stages the blobs that have no work-tree
  // file from the git folder first (core/lean/commit_blobs): in a lean
  // tree, and in one that becomes lean at this commit (lean_or_becoming),
  // whose new blobs a filter may have sent there.
  bool stages_from_git_folder() const;
  // From now on, in a tree that becomes lean at its next commit of blobs,
  // clean writes new blobs where a lean tree's go (the kept copies), not
  // into the work tree for the hook to read back and delete. For the filter
  // process, once git-jpblob's hooks are in place (install/hook_guard):
  // where no hook of ours runs, a user adds the blob files by hand. Call
  // before any blob is written. Nothing in a lean tree, or one that keeps
  // its store by choice.
  void send_new_blobs_to_git_folder();

  // top(), opened safely: every document is found and read below it
  // without following a link. Null when top() does not exist (a --store
  // folder not made yet): there is nothing below it then.
  const SafeDir* base() const { return base_.get(); }
  // The JP storage folder relative to base(): ".jp" in a work tree, "."
  // for a --store folder.
  const std::filesystem::path& storage() const { return storage_; }

  // The documents this work tree holds in the committed form although
  // smudge restores (core/workspace/committed_form); null outside a work
  // tree. finish() writes what was noted.
  CommittedFormRecord* committed_form() const { return committed_form_.get(); }
  // The form the work-tree file `path` (relative to the top) is in, for
  // clean: Committed with jpblob.smudge=refs or JPBLOB_SKIP_SMUDGE=1, or
  // when the record lists it; else JP's own (WorkTree).
  InputForm work_tree_form(const std::string& path) const;

  // Blob bytes for smudge and readers: the store first, then, when the
  // store is the work tree's, its kept copies and git's objects
  // (core/store/blob_lookup).
  const BlobLookup& blobs() const { return *source_; }

  // The same lookup by digest alone, for callers with no reference (and so
  // no declared size): `git jpblob cat`.
  std::optional<std::string> find_blob(const Digest& digest,
                                       std::optional<std::uint64_t> size = std::nullopt) const;

 private:
  Workspace() = default;
  // Held by pointer, like the store: the blob source keeps their
  // addresses, which must survive the Workspace being moved.
  std::unique_ptr<GitRepo> repo_;
  std::unique_ptr<BlobStore> store_;
  std::unique_ptr<KeptCopies> kept_;
  std::unique_ptr<NewBlobs> new_blobs_;
  std::unique_ptr<BlobLookup> source_;
  std::unique_ptr<CommittedFormRecord> committed_form_;
  Settings settings_;
  std::filesystem::path top_;
  std::unique_ptr<SafeDir> base_;
  std::filesystem::path storage_;
  bool in_work_tree_ = false;
  bool lean_ = false;
  bool new_blobs_in_git_folder_ = false;
  bool shared_read_ = false;
};

}  // namespace jpblob
