// The commits one push sends, each checked against its own tree
// (commit_check): the pre-push hook on the sending side and the pre-receive
// hook on the receiving one (docs/ARCHITECTURE.md, "Second line").
//
// - What the receiver has. pre-receive: every ref the server has (`--not
//   --all`; git updates no ref before the hook accepts). pre-push: the
//   remote ids on git's input and, when those do not bound the push or a
//   problem is found, what `git ls-remote` says the URL holds now; never a
//   remote-tracking ref, which a force push on the server makes stale
//   (hooks/pre_push.hpp). Checking the whole history instead refused a new
//   branch over an old commit the server held.
// - The quarantine. git keeps a received push's objects in
//   `objects/incoming-*` until the hooks accept, naming it in
//   GIT_OBJECT_DIRECTORY with the real objects in
//   GIT_ALTERNATE_OBJECT_DIRECTORIES. libgit2 reads these only with
//   GIT_REPOSITORY_OPEN_FROM_ENV, which also changes how the work tree is
//   found, so GitRepo opens that object database itself. Before, every
//   pushed document was absent to libgit2 and passed as holding no
//   reference; a document object git should hold and libgit2 cannot see is
//   now a problem outside a partial clone.
// - Whose problem. A problem a new commit shares with a parent (same
//   document, same blob, same fault) is the parent's: a broken commit the
//   server took before its hook was installed blocks no teammate's push on
//   top, and a commit holding its blobs mends it. A broken commit the push
//   itself sends is refused, since every clone would hold a commit it cannot
//   check out, and the message says how to amend it (never --no-verify).
//   Checking only the tips' trees was the other choice: it accepts a commit
//   that no clone can check out. A document committed without the filter
//   (core/maintenance/unfiltered) is only ever charged to the commit that
//   changed it, so such a problem is never a parent's; and it is refused
//   only while a pushed tip still holds the document so: a commit of it
//   checks out whole, and one on top that stores its payloads (docs/
//   USING.md's `git add --renormalize` after a merge) mends the branch.
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
// `min_size`: jpblob.minSize where a commit has no `.jpblobconfig` that
// sets it (the personal setting; CommitChecker).
PushCheckReport check_push(const GitRepo& repo, const GitCli& git, std::uint64_t max_blob_size, std::uint64_t min_size,
                           const std::vector<std::string>& tips, const std::vector<std::string>& have);

// Traces (GIT_TRACE) what `hook` decided of a push of `tips`: the commits
// and references checked, and whether the push goes.
void trace_push_verdict(const std::string& hook, const std::vector<std::string>& tips, const PushCheckReport& report);

}  // namespace jpblob
