// What the merge driver leaves for the filter while git replays several
// commits (rebase, `cherry-pick` or `revert` of a range, `am`): the results
// that keep payloads inline.
//
// A driver result may reference only blobs its sides hold (merge.hpp), so
// the payloads a branch made before adoption holds inline stay inline in
// the committed form, while the work tree gets JP's form. Cleaned again,
// that file gives references to every payload: not what the index holds.
// git re-cleans a file written in the index's own second (racily clean)
// when it writes the index after the pick, finds it changed, and marks it
// so; the next pick that touches the conversation then stops ("Your local
// changes to the following files would be overwritten"). So during the
// sequence each such result is noted, by the bytes of its JP's form, and
// clean gives the noted result back for a file of exactly those bytes:
// the form git holds, which references what the sides hold and keeps the
// rest inline. Every result of the sequence is kept, not only the last:
// git merges the next pick (and runs the driver) before it checks that
// the work tree is as the last one left it.
//
// Only during the sequence: the notes live in the folder git keeps the
// sequence's state in (`rebase-merge`, `rebase-apply`, `sequencer` in the
// worktree's git folder), which git removes when it ends. Afterwards clean
// is itself again, and the next `git add` (the next commit through the
// hook) stores the inline payloads, as after a single merge.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/documents/document.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

// The folder of the sequence of picks in progress in the worktree whose
// git folder is `gitdir`; nullopt when none is.
std::optional<std::filesystem::path> sequence_folder(const std::filesystem::path& gitdir);

// The driver's part: notes `result`, the committed form it gives git for
// `path`, when a sequence is in progress and the result keeps a payload
// inline that clean would store, by the JP's form git will check out
// (smudged here). Throws Error when the note cannot be written, or a blob
// the result references is nowhere.
void note_merge_result(const Workspace& ws, const std::string& path, DocumentKind kind, std::string_view result);

// The filter's part: the result noted for `path` during the sequence in
// progress in the worktree whose git folder is `gitdir`, whose JP's form is
// exactly `input` (the work-tree file); nullopt when none is. Such a file
// is as git checked it out, so the form git holds for it is the one to
// give back. Costs one stat where the worktree has no notes.
std::optional<std::string> noted_merge_result(const std::filesystem::path& gitdir, const std::string& path,
                                              std::string_view input);

}  // namespace jpblob
