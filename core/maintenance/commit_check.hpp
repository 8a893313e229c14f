// One commit's documents checked against that commit's own tree: the check
// behind `verify --history` and the pre-push hook (docs/ARCHITECTURE.md,
// "Second line").
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/base/problem.hpp"
#include "core/documents/document.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"

namespace jpblob {

// Not thread-safe; one per walk. Results are cached by object id, so a
// blob or document that many commits share is read and verified once.
class CommitChecker {
 public:
  // `repo` and `git` must outlive the checker. `max_blob_size` bounds
  // what one blob may inflate to when its reference declares no size.
  CommitChecker(const GitRepo& repo, const GitCli& git, std::uint64_t max_blob_size)
      : repo_(repo), git_(git), max_blob_size_(max_blob_size) {}

  // Checks every document (by path, see document_kind_at) in `commit`:
  // each blob it references must be in the same tree, be a regular file,
  // and hold bytes whose SHA-256 is its name (and size, its declared
  // size). Adds one line per problem to `problems`, naming commit, document
  // and digest, and counts references. Throws Error when git cannot list
  // the commit.
  void check(const std::string& commit, std::size_t& references, std::vector<Problem>& problems);

 private:
  // An empty line when the blob object verifies, else why not.
  const Problem& blob_problem(const std::string& id, const BlobUse& use);

  const GitRepo& repo_;
  const GitCli& git_;
  std::uint64_t max_blob_size_;
  std::unordered_map<std::string, std::vector<BlobUse>> references_of_;  // document id -> references
  std::unordered_map<std::string, Problem> blob_problems_;                // blob id -> problem or ""
};

}  // namespace jpblob
