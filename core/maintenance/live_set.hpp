// The live set behind gc and verify: every blob something still needs.
//
// LevelDB's cleanup discipline: gather everything that is referenced, list
// the store, delete what is not referenced, and delete nothing at all after
// any error while gathering.
//
// Every root git keeps is a root here: each worktree's files, index and
// operation in progress, the stash, the autostash of a rebase or merge
// (`rebase-merge/autostash`, `rebase-apply/autostash`, `MERGE_AUTOSTASH`,
// read as a stash entry), and for a blob in no git object the reflogs'
// commits. Each document comes with its DocumentOrigin, so `stats` counts
// the work tree's view without looking at how a name is spelled.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/format/digest.hpp"
#include "core/documents/document.hpp"
#include "core/base/progress.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

// Where a document the live set reads comes from.
enum class DocumentOrigin {
  WorkTree,  // a file in a work tree
  Index,     // a version staged in an index (any merge stage)
  Pending,   // a version in a commit git can give back that no branch may
             // hold: an operation in progress
  Stashed,   // the same in a stash entry, whose work-tree and untracked
             // parts git made without the pre-commit hook
};

struct DocumentRef {
  std::string what;  // names the file or staged version in messages
  DocumentKind kind;
  DocumentOrigin origin;
  std::string id;  // the git object id of an Index or Pending version; "" for WorkTree
  std::string path;  // relative to its work tree's top (or its commit's tree)
};

// Calls fn(doc, text) for every document the live set is built from (see
// build_live_set), on several threads at once: fn must be thread-safe.
// Throws Error on a file or object that cannot be read. With
// `temporaries`, the walk of this workspace's document folders also
// collects the temporaries below them (see list_documents).
// The form a document is in, as clean would read it: a work-tree file's
// (Workspace::work_tree_form), else the committed form.
inline InputForm form_of(const Workspace& ws, const DocumentRef& doc) {
  return doc.origin == DocumentOrigin::WorkTree ? ws.work_tree_form(doc.path) : InputForm::Committed;
}

using DocumentFn = std::function<void(const DocumentRef& doc, const std::string& text)>;
// Which documents for_each_document reads: every version the live set is
// built from, or only the files of the work trees (origin WorkTree), for
// a reader that asks nothing of the index or of commits (stats).
enum class DocumentHomes { All, WorkTrees };
// With `skip_unchanged`, a work-tree document of this work tree that git's
// index holds with the stat data the file still has
// (unchanged_since_indexed), under the id of the staged version given to
// fn, is left out: its clean is that version, which says what it needs.
// A lean clone's checkout is all such files, and reading and scanning
// them was most of gc's time.
// `progress` counts conversations ("Reading conversations"), each by its
// path: a work-tree file, its staged version and a stash entry's version
// are one conversation, done when the last of them has been read.
void for_each_document(const Workspace& ws, const DocumentFn& fn, const Progress& progress,
                       std::vector<std::filesystem::path>* temporaries = nullptr, bool skip_unchanged = false,
                       DocumentHomes homes = DocumentHomes::All);

struct LiveSet {
  std::unordered_set<Digest, DigestHash> digests;     // every blob something needs
  std::unordered_set<Digest, DigestHash> referenced;  // those named by an explicit reference
  // Those a Stashed version needs: a stash's untracked part holds
  // conversations without the blob files clean wrote while it was made, so
  // an index holding the same blob now does not speak for it (gc's kept
  // copies, core/lean/kept_copies).
  std::unordered_set<Digest, DigestHash> stashed;
  std::size_t documents = 0;  // documents (conversations, sessions) and staged versions read
  // The documents themselves, by path relative to their work tree's top:
  // one conversation in the work tree and in the index is one.
  std::unordered_set<std::string> document_paths;
  // The git versions read (object id and kind; see read_as): everything
  // such a version references is in `digests`, so a caller looking for
  // what else git could ask for need not read it again.
  std::unordered_set<std::string> versions;
  // AtomicFile temporaries below this workspace's document folders, found
  // by the same walk as its documents (relative to ws.base()), sorted.
  std::vector<std::filesystem::path> temporaries;
};

// The key of a document version in LiveSet::versions: its git object id
// read as `kind`.
std::string read_as(const std::string& id, DocumentKind kind);

// Gathers the live set: every conversation and session in the work tree
// (.archive included), every staged version in the index (any file
// .gitattributes routes to the filter included), in a repository with
// linked worktrees every other worktree's documents and index, every stash
// entry (its work tree, index and untracked parts), and the commits of a
// merge, cherry-pick, revert or rebase in progress in any worktree. A work tree
// document counts with the blobs clean would write for its inline
// payloads, whatever jpblob.minSize says. Throws Error naming the file on
// anything unreadable or unparseable: the caller must then delete nothing.
LiveSet build_live_set(const Workspace& ws, const Progress& progress);

}  // namespace jpblob
