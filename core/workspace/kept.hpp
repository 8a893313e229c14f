// Kept copies (docs/ARCHITECTURE.md, "Kept copies"; BlobStore::kept_copies):
// when a kept copy has done its job. It keeps a blob that is not committed
// yet safe from git deleting its work-tree file; once the index holds the
// same bytes, git gives the blob back (and a stash saves the index), so the
// copy goes. The pre-commit hook asks for the blobs it staged, gc for all.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "core/format/digest.hpp"
#include "core/git/git_cli.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

// False while any stash entry exists: a stash may reference a blob whose
// kept copy is its only one although the index holds the same bytes today
// (another conversation with the same output), and the index can drop them
// again (a refused commit, then `git reset`). Then only gc, which reads
// what the stash needs, removes copies. False too while the repository has
// other worktrees, which share the folder: their staged conversations may
// need a copy this index holds (a lean tree's new blobs live there only),
// and their hooks may be staging from it at that moment. One reference
// lookup and one folder look, no git call.
bool kept_copies_may_go(const Workspace& ws);

// The blobs of `digests` whose kept copy `index` (a GitCli with the index
// to ask) stages byte for byte at its tracked path, in one git call.
std::vector<Digest> kept_copies_staged(const Workspace& ws, const GitCli& index,
                                       const std::vector<Digest>& digests);

// The same against ids already read (tracked path -> blob id): only a
// copy whose path is there is read.
std::vector<Digest> kept_copies_held(const Workspace& ws, const std::unordered_map<std::string, std::string>& ids,
                                     const std::vector<Digest>& digests);

// Removes the kept copies of kept_copies_staged(), unless
// kept_copies_may_go() says no; returns how many went.
std::size_t drop_kept_copies(const Workspace& ws, const GitCli& index, const std::vector<Digest>& digests);

// Removes the kept copies of kept_copies_held(), unless kept_copies_may_go()
// says no; returns how many went.
std::size_t drop_kept_copies_held(const Workspace& ws, const std::unordered_map<std::string, std::string>& ids,
                                  const std::vector<Digest>& digests);

// Removes the kept copies of `digests` that this process staged itself a
// moment ago, from the copies themselves (GitCli::stage_out_of_tree): the
// index holds the ids of those very bytes, so none is read again (at
// 100,000 new blobs, reading and hashing them again took two seconds).
// Unless kept_copies_may_go() says no; returns how many went.
std::size_t drop_kept_copies_staged_here(const Workspace& ws, const std::vector<Digest>& digests);

// Takes the kept folder out of the way as a whole (BlobStore::retire_to)
// when every copy in it is one of `staged_here` (what this process staged
// from the copies themselves, as for drop_kept_copies_staged_here), unless
// kept_copies_may_go() says no, and starts a process of its own that
// deletes it (`git-jpblob purge-retired`, purge_retired_copies). For the
// commit that stages a whole large add: deleting 114,000 copies kept that
// commit waiting five seconds where unlink(2) waits on the disk's
// discard. False, with nothing moved, when it cannot (a writer at work, a
// copy not staged here, copies that must stay): the caller removes them
// one by one.
bool retire_kept_copies(const Workspace& ws, const std::vector<Digest>& staged_here);

// <common dir>/jpblob/retired, where retire_kept_copies() moves kept
// folders; nothing else is ever written there.
std::filesystem::path retired_copies_folder(const std::filesystem::path& common_dir);

// Deletes the folders retire_kept_copies() moved aside in the repository
// whose common dir is `common_dir`, and returns how many copies went. Run
// by the process retire_kept_copies() starts, and by gc, for one that was
// killed or never started. Several at once are harmless (each deletion
// that finds its file gone moves on).
std::size_t purge_retired_copies(const std::filesystem::path& common_dir);

}  // namespace jpblob
