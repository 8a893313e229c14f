// The commits one push sends, each checked against its own tree
// (commit_check): the pre-push hook on the sending side and the pre-receive
// hook on the receiving one (docs/ARCHITECTURE.md, "Second line").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/problem.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"

namespace jpblob {

struct PushCheckReport {
  std::size_t commits = 0;            // commits checked
  std::size_t references = 0;         // references checked
  std::vector<Problem> problems;  // one each; non-empty refuses the push
};

// Checks every commit reachable from one of `tips` and from none of `have`
// (rev-list arguments after --not: ids, --all, --remotes=<name>), the
// commits the receiver does not hold yet. A problem is reported where a
// commit of the push brings it in: one a commit shares with a parent (the
// same document referencing the same blob, lacking or corrupt in the parent
// too) is the parent's. So a push on top of a broken commit the receiver
// already holds is judged by what it adds, and a commit whose tree holds the
// blobs mends it; a broken commit the push itself sends is refused, since
// every clone would then hold a commit it cannot check out.
// Throws Error when git cannot list the commits.
PushCheckReport check_push(const GitRepo& repo, const GitCli& git, std::uint64_t max_blob_size,
                           const std::vector<std::string>& tips, const std::vector<std::string>& have);

}  // namespace jpblob
