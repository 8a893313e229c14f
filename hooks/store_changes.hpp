// What a commit does to the store's own files (docs/TEAM.md, "The
// pre-commit hook"): blob files staged by hand (`git add .jp/blobs/…`,
// `git rm`, what `git jpblob repair` stages), judged before any document.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/base/problem.hpp"
#include "core/format/digest.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"

namespace jpblob {

struct StoreChanges {
  std::map<std::string, std::string> staged;  // blob files staged by hand, checked: path -> gzip bytes
  std::vector<std::string> staged_paths;      // the keys of `staged`, in order
  std::set<Digest> deleted;                   // blob files this commit removes
  std::set<std::string> paths;                // every store path the index changes against HEAD
};

// Takes one staged change of a store path into `changes`, or a line into
// `problems`: an added blob file must hold what its name says; a changed
// one may only mend a copy that never did (a blob never changes
// otherwise); a link is refused. `max_blob_size`: jpblob.maxBlobSize.
void judge_store_change(const GitRepo& repo, std::uint64_t max_blob_size, const RawChange& change,
                        StoreChanges& changes, std::vector<Problem>& problems);

}  // namespace jpblob
