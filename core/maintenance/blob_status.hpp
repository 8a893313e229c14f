// `git jpblob status` (README, "Diagnostics"): for each conversation the
// index holds, where its blobs are, as `git lfs status` tells what is staged
// and what is not: all in HEAD, some staged only, some only in the git folder
// (or, with the store checked out, an untracked blob file) for the next
// commit to stage, or some nowhere. Beside that, the documents the index
// holds with payloads inline although .gitattributes route them to the
// filter (core/maintenance/unfiltered): committed by a clone without
// git-jpblob, or before adoption. git may show such a file modified while
// `git diff` prints nothing; `git add --renormalize` stores its payloads.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/format/digest.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

// Where a blob is, best first; a document is as far along as its worst blob.
enum class BlobPlace { Committed, Staged, NotStaged, Missing };

// "committed", "staged", "not_staged", "missing": the --json names.
const char* place_name(BlobPlace place);

struct DocumentStatus {
  std::string path;
  BlobPlace place = BlobPlace::Committed;  // its worst blob's
  std::size_t blobs = 0;                   // distinct blobs it references
  std::vector<Digest> missing;             // those in no copy git-jpblob can reach
  // Held in the index with payloads inline that the filter, which the
  // attributes route it to, would store.
  bool unfiltered = false;
};

struct StatusReport {
  bool lean = false;
  std::size_t counts[4] = {0, 0, 0, 0};  // documents by BlobPlace
  std::vector<DocumentStatus> documents;  // every document in the index, by path
  std::vector<std::string> unfiltered;    // the paths of those unfiltered, by path
};

// The exact commands that store the payloads of documents the index holds
// unfiltered (`paths`, relative to the top): `git add --renormalize` of
// them (of their folders when there are many), then `git commit`.
std::string unfiltered_index_mend(const std::vector<std::string>& paths);

// Reads the index, HEAD's store and the work tree's and git folder's blob
// files, and asks git the attributes of a document holding payloads
// inline; changes nothing.
StatusReport blob_status(const Workspace& ws, const GitRepo& repo, const GitCli& git);

}  // namespace jpblob
