// One commit's documents checked against that commit's own tree: the check
// behind `verify --history` and the pre-push hook (docs/ARCHITECTURE.md,
// "Second line"), and whether a document was committed without the filter
// (core/maintenance/unfiltered).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/base/problem.hpp"
#include "core/documents/document.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"
#include "core/maintenance/unfiltered.hpp"

namespace jpblob {

// Not thread-safe; one per walk. Results are cached by object id, so a
// blob or document that many commits share is read and verified once.
class CommitChecker {
 public:
  // `repo` and `git` must outlive the checker. `max_blob_size` bounds
  // what one blob may inflate to when its reference declares no size;
  // `min_size` is jpblob.minSize where a commit has no `.jpblobconfig`
  // setting it (the personal setting).
  CommitChecker(const GitRepo& repo, const GitCli& git, std::uint64_t max_blob_size, std::uint64_t min_size)
      : repo_(repo), git_(git), max_blob_size_(max_blob_size), unfiltered_(repo, git, min_size) {}

  // Checks every document (by path, see document_kind_at) in `commit`:
  // each blob it references must be in the same tree, be a regular file,
  // and hold bytes whose SHA-256 is its name (and size, its declared
  // size). With `parents` (the commit's, empty for a root commit), also
  // whether a document the commit changes was committed without the filter
  // (UnfilteredCheck). Adds one line per problem to `problems`, naming
  // commit, document and digest, and counts references. Throws Error when
  // git cannot list the commit.
  void check(const std::string& commit, std::size_t& references, std::vector<Problem>& problems,
             const std::vector<std::string>* parents = nullptr);

  // Drops each problem of a document committed without the filter whose
  // path none of `tips` (commit ids: a push's new tips, the refs verify
  // walked) still holds unfiltered: a later commit mended it, as
  // docs/USING.md's `git add --renormalize` after a merge does. Such a
  // commit checks out whole, so only what a branch still holds is asked of
  // anyone. Throws Error when git cannot list a tip.
  void drop_mended(std::vector<Problem>& problems, const std::vector<std::string>& tips);

 private:
  // An empty line when the blob object verifies, else why not.
  const Problem& blob_problem(const std::string& id, const BlobUse& use);

  const GitRepo& repo_;
  const GitCli& git_;
  std::uint64_t max_blob_size_;
  struct Scanned {
    std::vector<BlobUse> references;
    bool holds_payloads = false;  // some payload inline, at any size
  };
  std::unordered_map<std::string, Scanned> scanned_;  // document id -> what it holds
  UnfilteredCheck unfiltered_;
  std::unordered_map<std::string, Problem> blob_problems_;                // blob id -> problem or ""
};

}  // namespace jpblob
