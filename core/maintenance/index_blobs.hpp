// The blobs the index holds with no file in the work-tree store: in a lean
// work tree (core/lean/lean_tree) every committed blob, which git's objects
// alone keep. verify and stats read them there, so that they answer the same
// in a lean clone and in a clone that checks its store out (SPEC §2, "Every
// command knows both homes"); gc unstages those nothing needs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/format/digest.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

struct IndexBlob {
  Digest digest;
  std::string path;  // its tracked path, .jp/blobs/aa/bb/<h>.blob.gz
  std::string id;    // the git blob the index names
};

// Stage-0 index entries of the store (every worktree's index when
// `all_worktrees`, each blob once) whose digest `in_store` lacks. Empty
// outside a work tree.
std::vector<IndexBlob> index_only_blobs(const Workspace& ws,
                                        const std::unordered_set<Digest, DigestHash>& in_store,
                                        bool all_worktrees = false);

struct IndexBlobCheck {
  std::uint64_t stored = 0;            // the git object's size: the gzip file's
  std::optional<std::uint64_t> size;   // the blob's own size once verified; nullopt when absent from git
  std::string problem;                 // set when git holds other bytes than its name says
};

// Reads each blob from git's objects (never fetching) and verifies it as a
// blob file is verified (gzip, CRC, ISIZE, SHA-256 against its name), on
// several threads.
std::vector<IndexBlobCheck> check_index_blobs(const Workspace& ws, const std::vector<IndexBlob>& blobs);

}  // namespace jpblob
