// Where clean puts the blobs it makes in a work tree (Workspace::new_blobs,
// docs/lean.md). In a lean work tree no blob file is ever in the work tree
// (SPEC §2): a new blob's home is its kept copy in the git folder until the
// pre-commit hook stages it from there, and a blob the index already holds
// out of the work tree is not written at all. Elsewhere a new blob is a
// file of the work-tree store, hard-linked into the kept copies so that git
// deleting the file (`git stash -u`, `git clean -x`) loses nothing.
//
// Thread safety: put_all() and put() may be called from several threads at
// once; finish() once writers are done.
#pragma once

#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "core/lean/kept_copies.hpp"
#include "core/lean/lean_tree.hpp"
#include "core/store/blob_sink.hpp"
#include "core/store/blob_store.hpp"

namespace jpblob {

class NewBlobs : public BlobSink {
 public:
  // `store`: the work-tree store (or a --store folder). `kept`: the kept
  // copies, null where there are none (no work tree). `held`: given where
  // new blobs go to the kept copies only (new_blobs_in_git_folder), where
  // it asks the index before each write. `lean`: false in a tree that is
  // not lean yet (an adopting one), where put_all() writes as in a lean
  // one but repair's writes (home(), put(), replace_corrupt()) and
  // put_in_work_tree() go to the work tree as before. `store` and `kept`
  // must outlive this.
  NewBlobs(const BlobStore& store, const KeptCopies* kept, HeldInIndex held, bool lean = true);
  NewBlobs(const NewBlobs&) = delete;
  NewBlobs& operator=(const NewBlobs&) = delete;

  // The store the new blobs live in: the kept copies' in a lean work tree,
  // else the work-tree store. For reading and checking them (repair).
  const BlobStore& home() const;

  // Stores every payload in the new blobs' home. Outside a lean tree the
  // links into the kept copies are left to finish(), which makes them all
  // with one sync, as git batches its fsyncs: linking as each document's
  // blobs were published made a cold `git add` 11% slower. Throws
  // CorruptBlobInTheWay when the index holds a copy under a blob's name
  // that does not hold its content (lean).
  std::vector<BlobPut> put_all(const std::vector<std::string_view>& payloads) const override;
  // One blob, linked at once (made durable with the file).
  BlobPut put(const Digest& digest, std::string_view bytes) const;
  // One blob as a work-tree file whatever the mode (`git jpblob store`,
  // which users run to put a file where the hook looks), linked at once.
  BlobPut put_in_work_tree(const Digest& digest, std::string_view bytes) const;
  // Writes a corrupt copy in the home again from `bytes`, which must be the
  // blob (BlobStore::replace_corrupt), and mends the kept copy outside a
  // lean tree: a link to a file written over in place is corrupt too.
  bool replace_corrupt(const Digest& digest, std::string_view bytes) const;

  // Makes the names put_all() published durable with one sync (put_all
  // syncs each document's bytes before publishing them, but not the names:
  // two syncs a conversation were a third of a `git add`), then links
  // into the kept copies what it published in the work-tree store, and
  // syncs. A blob whose file is gone meanwhile has nothing to keep. Throws
  // Error; each blob file itself is stored already.
  void finish() const;

 private:
  // The lean tree's question before writing: whether the index holds the
  // blob already (no write), or holds something else under its name.
  GitCopy ask_index(const Digest& digest, std::string_view bytes) const;

  const BlobStore& store_;
  const KeptCopies* kept_;
  HeldInIndex held_;
  bool lean_;
  struct Unkept {
    std::mutex mutex;
    std::vector<Digest> digests;
    // put_all() published names that no sync has made durable yet.
    bool store_unsynced = false;
    bool kept_unsynced = false;
  };
  std::unique_ptr<Unkept> unkept_ = std::make_unique<Unkept>();
};

}  // namespace jpblob
