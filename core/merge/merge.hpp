// The merge driver (`merge.jpblob`, docs/USING.md, "Merges"): git hands it
// the base, ours and theirs of one file in the repository's form and takes
// the result in that form.
//
// - Conversations (a JSON array of events) and sessions (JSON lines) are
//   logs that teammates append to. When both sides kept the base's events
//   and appended their own, the result is the base's events, then both
//   sides' new events in blocks that stay whole: each side's new events
//   cut before each `"type":"turn_start"` event, or all of them one block
//   without any. Blocks are ordered by their first event's `timestamp`
//   read as a time (event_time), ours first on a tie or where either has
//   none, each side's in its own order; an event both appended appears
//   once. Laid out as ours is. This needs no blob: the events are spliced
//   in their committed form.
// - Sides in two forms (a branch made before adoption holds its payloads
//   inline, an adopted one references them): the same in JP's own form,
//   every side restored, the result cleaned back as below.
// - Anything else (an event edited or removed on one side) is merged line by
//   line (`git merge-file`) in JP's own form, payloads restored, so that a
//   real conflict shows both sides readable, between conflict markers;
//   a clean line merge is cleaned back to the repository's form, with
//   references only to blobs one of the three sides references: git makes
//   the commit without the pre-commit hook, and only those blobs are sure
//   to be in it. New content stays inline until the next `git add`.
// - Blob files: two files of one name hold the same bytes, whatever gzip
//   made them; ours is kept when it is a valid copy, else theirs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/documents/document.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

struct MergeOutcome {
  std::string content;  // what git stores (clean) or checks out with markers (conflict)
  bool conflict = false;
  std::string how;      // "appended", "lines", "same blob", ... for messages and tests
  std::vector<std::string> warnings;  // one line each, for the driver to print
};

// Appends-only merge of two event logs in their committed form; nullopt
// when one side changed or removed what the base held (or a side is not
// readable as its kind).
std::optional<std::string> merge_appended(DocumentKind kind, std::string_view base, std::string_view ours,
                                          std::string_view theirs);

// The whole driver for the file at `path` (repository-relative). `marker_size`
// is git's %L. Where a blob a side references is nowhere, the sides are
// merged as committed by git's line merge, with a warning: nothing is lost,
// a conflict shows references.
MergeOutcome merge_file(const Workspace& ws, const std::string& path, std::string_view base, std::string_view ours,
                        std::string_view theirs, int marker_size);

}  // namespace jpblob
