// `git jpblob export`: the way out, as `git lfs migrate export` is
// git-lfs's, but without rewriting history. One commit on top of HEAD:
// - every document the index holds is staged in JP's form (the smudge of
//   its staged version: the exact bytes JP wrote), and a work-tree file
//   still in the committed form gets that form too;
// - install's lines (and earlier versions' forms of them) leave
//   .gitattributes, in the index and in the work tree;
// - .jp/blobs leaves the index (`git rm -r`: its matching files leave the
//   work tree too, and status stays clean).
// A clone of that commit by someone without git-jpblob then has JP's own
// bytes. Earlier commits still hold references: checking one out needs
// git-jpblob, whose smudge finds their blobs in those commits.
//
// Refused, with nothing changed, on an index that differs from HEAD (the
// commit must hold the export alone), on a document whose blob is nowhere,
// and outside a work tree or before a first commit. The commit runs no
// hook: the hooks' checks are for references, and this commit leaves them.
// What this machine set up (config, hooks, a lean tree) stays: `git jpblob
// uninstall` removes it.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace jpblob {

struct ExportReport {
  std::vector<std::string> documents;  // staged in JP's form (or that would be)
  std::size_t attribute_lines = 0;     // lines of ours out of the staged .gitattributes
  std::size_t blobs = 0;               // blob files out of the index
  std::optional<std::string> commit;   // the commit made; none on a dry run or with nothing to do
  bool nothing_to_do() const { return documents.empty() && attribute_lines == 0 && blobs == 0; }
};

// Throws Error (ErrorKind::Problem) for a refusal, before any change.
ExportReport export_repository(const std::filesystem::path& cwd, bool dry_run);

// The commit message export writes.
std::string export_message();

}  // namespace jpblob
