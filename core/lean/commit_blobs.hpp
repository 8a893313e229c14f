// The pre-commit hook's two questions of the lean room (docs/lean.md):
// where the blobs a commit needs are when the work tree has no file for
// them, and what happens to the work tree and the kept copies once they are
// staged. The hook itself only checks, refuses and stages.
//
// Where a blob is, in order: its kept copy (first in a lean work tree,
// where every new blob lives there; elsewhere after the index, since a kept
// copy there writes a work-tree file), the index the hook was handed, then
// the real index (`git commit <paths>`) and, in a lean tree, every other
// worktree's index.
#pragma once

#include <cstdint>
#include <ctime>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/format/digest.hpp"
#include "core/git/git_cli.hpp"
#include "core/lean/lean_tree.hpp"
#include "core/lean/new_blobs.hpp"

namespace jpblob {

// A blob a staged document references that has no work-tree file.
struct WantedBlob {
  Digest digest;
  std::optional<std::uint64_t> size;  // as the reference declares it
  std::string path;                   // its tracked path
};

// Where locate() found one.
struct BlobCopy {
  enum class Is {
    Nowhere,        // no copy the commit can take: refuse it
    Unusable,       // its kept copy is corrupt or cannot be written out: `detail` says why
    MissingObject,  // the index stages it, but git's objects lack that object
    Staged,         // the index stages it already: check `check`, if given
    Restored,       // outside a lean tree: its kept copy wrote the work-tree file again, to stage as a file
    OutOfTree,      // to stage from outside the work tree (`entry`), once `check`, if given, passes
  } is = Is::Nowhere;
  // Blob-file bytes to check against the reference before the copy counts
  // (a copy already checked here has none).
  std::optional<std::string> check;
  std::string detail;       // Unusable: the error; with `check`: which copy it is, for messages
  GitCli::OutOfTree entry;  // OutOfTree
};

class CommitBlobs {
 public:
  // `lean`: new blobs live in the git folder (Workspace::stages_from_git_folder:
  // a lean tree, or one that becomes lean at this commit), and are staged
  // from there. `git`: git in the work tree, with the index the hook was handed, whose
  // file is `index_file`; `extra_index`: the real index git holds as
  // index.lock during `git commit <paths>`, which gets the same staging.
  // Everything must outlive this.
  CommitBlobs(const LeanParts& parts, const NewBlobs& new_blobs, bool lean, const GitCli& git,
              std::optional<std::filesystem::path> extra_index, std::filesystem::path index_file);

  // Where each of `wanted` is (results in its order). `store_changes`: the
  // store paths the index changes against HEAD (any other has in the index
  // what HEAD's tree has, looked up there instead of in the whole index).
  // Kept copies are read and checked on several threads (thousands after a
  // large add: the reads wait on the disk).
  std::vector<BlobCopy> locate(const std::vector<WantedBlob>& wanted, const std::set<std::string>& store_changes) const;

  // What this commit staged, for after_staging().
  struct Staged {
    const std::vector<std::string>& files;               // from work-tree files
    const std::vector<std::string>& by_hand;             // blob files the user staged (`git add .jp/blobs/…`)
    const std::vector<GitCli::OutOfTree>& out_of_tree;   // with every id filled in
  };
  // After staging: the kept copies of what the index that stays now holds
  // go, and in a lean work tree (or one that becomes lean at this, its
  // first commit that tracks blobs) the staged blob files leave the work
  // tree. Throws Error on a git failure; the commit's staging is done.
  void after_staging(const Staged& staged) const;

 private:
  // How long locate() waits for a filter process still writing a pending pack.
  static constexpr int kWriterWaitMs = 10000;
  std::vector<BlobCopy> locate_once(const std::vector<WantedBlob>& wanted,
                                    const std::set<std::string>& store_changes) const;
  // A kept copy, read and checked.
  struct KeptRead {
    enum class Is { Absent, Sound, Unusable } is = Is::Absent;
    std::string error;  // Unusable: corrupt, or a store that cannot be written
    std::string pending_id;  // Sound in a lean tree: the object of a pending pack that holds it
  };
  void read_kept(const std::vector<WantedBlob>& wanted, const std::function<bool(std::size_t)>& asked,
                 std::vector<KeptRead>& kept) const;
  // Where one blob is, from its kept copy and the id the index stages at
  // its path (null when none); Nowhere when neither has it.
  BlobCopy classify(const WantedBlob& w, const KeptRead& kept, const std::string* staged_id) const;
  // Those of `nowhere` that the real index or another worktree's holds.
  void look_in_other_indexes(const std::vector<WantedBlob>& wanted, std::vector<std::size_t>& nowhere,
                             std::vector<BlobCopy>& found) const;
  bool index_is_real() const;
  void drop_kept(const Staged& staged) const;
  void release_pending(const Staged& staged, bool into_real_index, std::optional<std::time_t> stash_changed) const;
  void leave_work_tree(const Staged& staged) const;
  // Those of `nowhere` (indexes into `wanted`) that `index` stages become
  // OutOfTree copies staged by id, and leave `nowhere`.
  void take_from_index(const GitCli& index, const std::string& where, const std::vector<WantedBlob>& wanted,
                       std::vector<std::size_t>& nowhere, std::vector<BlobCopy>& found) const;

  LeanParts parts_;
  const NewBlobs& new_blobs_;
  bool lean_;
  const GitCli& git_;
  std::optional<std::filesystem::path> extra_index_;
  std::filesystem::path index_file_;
};

}  // namespace jpblob
