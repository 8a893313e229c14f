// Kept copies (docs/ARCHITECTURE.md, "Kept copies"; BlobStore::kept_copies):
// when a kept copy has done its job. It keeps a blob that is not committed
// yet safe from git deleting its work-tree file; once the index holds the
// same bytes, git gives the blob back (and a stash saves the index), so the
// copy goes. The pre-commit hook asks for the blobs it staged, gc for all.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "digest.hpp"
#include "git_cli.hpp"
#include "workspace.hpp"

namespace jpblob {

// The blobs of `digests` whose kept copy `index` (a GitCli with the index
// to ask) stages byte for byte at its tracked path, in one git call.
std::vector<Digest> kept_copies_staged(const Workspace& ws, const GitCli& index,
                                       const std::vector<Digest>& digests);

// The same against ids already read (tracked path -> blob id): only a
// copy whose path is there is read.
std::vector<Digest> kept_copies_held(const Workspace& ws, const std::unordered_map<std::string, std::string>& ids,
                                     const std::vector<Digest>& digests);

// Removes the kept copies of kept_copies_staged(); returns how many went.
std::size_t drop_kept_copies(const Workspace& ws, const GitCli& index, const std::vector<Digest>& digests);

// Removes the kept copy of `digest` when it holds exactly the git blob
// `id` (one an index holds); true when it went.
bool drop_kept_copy(const Workspace& ws, const Digest& digest, const std::string& id);

}  // namespace jpblob
