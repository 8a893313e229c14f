// Documents rewritten in place, both ways:
// - `git jpblob migrate`: every document in the work tree rewritten in its
//   cleaned form (RFD 066 phase 4), so JP with RFD 066 reads the references
//   directly;
// - `git jpblob checkout`: JP's own form put back from the reference form
//   (after JPBLOB_SKIP_SMUDGE, a hand-resolved conflict, or migrate), as
//   `git lfs checkout` does.
// Both leave git status as it was: a rewritten file whose staged version is
// what it cleans to has its index entry refreshed.
#pragma once

#include <string>
#include <vector>

#include "core/base/progress.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

struct MigrateReport {
  std::vector<std::string> rewritten;  // documents changed (or that would be)
  std::size_t unchanged = 0;
  std::vector<std::string> skipped;    // not readable as their kind: left alone, with why
};

// For each document: store its blobs first, then replace the file
// atomically, so an interruption at any point leaves every file whole and
// every blob it references present; running again finishes the job.
MigrateReport run_migrate(const Workspace& ws, bool dry_run, const Progress& progress);

struct CheckoutReport {
  std::vector<std::string> restored;  // documents put back in JP's form (or that would be)
  std::size_t unchanged = 0;          // already in JP's form
  std::vector<std::string> problems;  // documents that could not be restored, with why
};

// Restores JP's form of the documents below `paths` (relative to the top;
// empty for all): every reference that carries an encoding becomes its
// original string again, from the store or git's objects. A document whose
// blob cannot be found is left as it is and reported; the others go on.
CheckoutReport run_checkout(const Workspace& ws, const std::vector<std::string>& paths, bool dry_run,
                            const Progress& progress);

// install's half of checkout (install/adoption): JP's form back for each
// document git checked out without the filter, in a clone made before
// git-jpblob was installed. Only a document whose bytes are the index's
// own (the committed form, unchanged since) and that the committed-form
// record does not list (migrate's output, JPBLOB_SKIP_SMUDGE's, a blob
// smudge could not find: left in that form on purpose) is rewritten.
// Nothing in refs mode (jpblob.smudge=refs), where the committed form is
// the one wanted.
CheckoutReport restore_unfiltered_checkout(const Workspace& ws, const Progress& progress);

}  // namespace jpblob
