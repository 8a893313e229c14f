// `git jpblob verify [--history]`: every blob's checksum, every reference
// resolved, and with --history every commit's references against that
// commit's own tree (docs/ARCHITECTURE.md, "Back of the house").
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/base/problem.hpp"
#include "core/base/progress.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

struct VerifyReport {
  std::size_t blobs = 0;       // blob files checked
  std::size_t references = 0;  // references checked
  std::size_t commits = 0;     // commits checked with --history
  std::size_t kept = 0;        // kept copies checked (one linked to a blob file checked is not read again)
  std::vector<Problem> problems;
  // Not problems: blobs the user's own data names (a tool argument shaped
  // like a reference, say) that no copy holds. Nothing requires them
  // (docs/FORMAT.md, "Literal objects"). Sorted, one per document and blob.
  std::vector<std::string> notes;
  std::vector<std::string> unreferenced;  // gc candidates, relative paths
};

// Never throws for what it finds (those are problems); throws Error when
// the store, a document or git cannot be read at all. With `history`, the
// commits checked are every commit reachable from any ref, or when
// `revisions` is not empty, those `git rev-list <revisions>` lists (a CI
// job's pushed range, `<before>..<after>`); a document a commit changed
// without the filter is a problem while a ref (or the range's end) still
// holds it so (core/maintenance/unfiltered).
VerifyReport run_verify(const Workspace& ws, bool history, const Progress& progress,
                        const std::vector<std::string>& revisions = {});

}  // namespace jpblob
