// Where smudge and readers find a blob. Two homes, one truth: git's objects
// hold every committed blob, and are its truth; the work-tree store holds
// what is not committed yet and, where wanted, a checked-out copy. Reading
// git wherever the store lacks a blob, nothing depends on the work-tree copy
// existing, nor on git having written the blob files before the
// conversations (parallel checkout, git-lfs's delayed smudge, `stash -u`);
// gc may delete a work-tree file git can give back (core/maintenance/gc.hpp).
//
// In order: the store; its kept copies (what clean wrote, where git's
// stash and clean never delete it); the new blobs clean wrote into git's
// objects as pending packs; the commit git is checking out (`treeish`, when git
// says); the index; HEAD; then any commit reachable from a ref or the stash
// (one listing, made on the first miss and kept). A blob object a partial
// clone lacks is fetched through git: on the first one missing from the
// commit being checked out, every blob object that commit's store holds
// and the clone lacks comes in one fetch (git prefetches what a checkout
// writes, but not the blobs a lean work tree leaves out), and one object a
// fetch after that. A blob file that git-lfs tracks is read through its
// pointer. Every copy is verified before use.
//
// Thread safety: fetch() may be called from several threads; the git side
// runs one call at a time, under the repository's lock (GitRepo::lock).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/store/blob_store.hpp"
#include "core/git/git_repo.hpp"
#include "core/store/blob_source.hpp"

namespace jpblob {

class BlobLookup : public BlobSource {
 public:
  // `repo` when the store is its work tree's (blobs have tracked paths),
  // else null: the store alone. `kept`, when given, is looked in right
  // after the store (core/lean/kept_copies), then `pending`, the new blobs
  // written into git's objects (core/lean/pending_packs). All must outlive
  // the lookup.
  BlobLookup(const BlobStore& store, const BlobStore* kept, const GitRepo* repo, const BlobSource* pending = nullptr)
      : store_(store), kept_(kept), pending_(pending), repo_(repo) {}

  std::optional<std::string> fetch(const Digest& digest, std::optional<std::uint64_t> size) const override {
    return find(digest, size, std::nullopt);
  }

  // The verified bytes, or nullopt when no copy exists anywhere. Throws
  // Error when the only copies found are corrupt.
  std::optional<std::string> find(const Digest& digest, std::optional<std::uint64_t> size,
                                  const std::optional<std::string>& treeish) const;

  // The lookup without the store: git's objects alone (for repairing a
  // corrupt store file). Same order and rules as find().
  std::optional<std::string> find_in_git(const Digest& digest, std::optional<std::uint64_t> size,
                                         const std::optional<std::string>& treeish) const;

  // The same lookup with the commit git is checking out looked in first.
  std::unique_ptr<BlobSource> at(std::optional<std::string> treeish) const;

 private:
  // A blob object's bytes: from libgit2, else through git (a partial
  // clone's missing object), with a git-lfs pointer resolved.
  std::optional<std::string> read_object(const std::string& id, const std::string& path) const;
  // In a partial clone, fetches at once every blob object below the store's
  // path in `treeish` that the clone lacks; once per treeish. Lock held.
  void prefetch(const std::string& treeish) const;
  // Why a blob object a tree names could not be read. Lock held.
  std::string unreadable(const std::string& id, const std::string& path, const std::string& where) const;

  const BlobStore& store_;
  const BlobStore* kept_;
  const BlobSource* pending_;
  const GitRepo* repo_;
  // Digest -> blob object id in any reachable commit, built on first need.
  // Every object any commit holds at a blob's path: more than one when a
  // corrupt copy was committed somewhere.
  mutable std::optional<std::unordered_multimap<Digest, std::string, DigestHash>> history_;
  mutable std::unordered_set<std::string> prefetched_;  // treeishes
};

}  // namespace jpblob
