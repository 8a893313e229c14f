// One entry of a git index, and of a commit's tree, as both ways of
// reading them give it: the git program (GitCli: `git ls-files --stage`,
// `git ls-tree -r`) and libgit2 (GitRepo).
#pragma once

#include <string>

namespace jpblob {

struct IndexEntry {
  std::string mode;  // "100644", "100755", "120000" (a link), "160000" (a submodule)
  std::string id;
  int stage = 0;     // 0, or 1–3 during a merge conflict
  std::string path;
  bool skip_worktree = false;  // left out of the work tree (a sparse checkout)
};

// One entry of a commit's tree, at any depth.
struct TreeEntry {
  std::string mode;
  std::string type;  // "blob", "commit"
  std::string id;
  std::string path;
};

}  // namespace jpblob
