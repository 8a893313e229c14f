// Lean work trees (docs/lean.md): where smudge
// gives JP its inline form, the committed blob files are a second copy of
// what events.json already holds, and 1,000 conversations check out 20,000
// of them for git to write, stat and read on every status. A lean work tree
// keeps committed blobs in git's objects only: a sparse-checkout pattern
// leaves .jp/blobs out (so checkout, clone, pull and merge never write
// those files and status never looks at them), and the pre-commit hook
// marks the blobs it stages the same way and drops their files, so a new
// blob stays in the work tree only until its commit holds it. The tree git
// commits is unchanged (RFD 066's layout, gzip bytes and all).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"
#include "core/lean/kept_copies.hpp"
#include "core/store/blob_store.hpp"

namespace jpblob {

// The sparse-checkout patterns of a lean work tree: everything but the store.
inline constexpr std::string_view kLeanPatterns = "/*\n!/.jp/blobs/\n";

// Set with the lean patterns alone: git then no longer stats every
// skip-worktree entry's path on each index read, looking for files that
// came back (docs/lean.md: 40% of a lean
// status). git-jpblob never leaves a file it needs git to see at such a
// path: repair clears the bit of what it stages again.
inline constexpr std::string_view kExpectFiles = "sparse.expectFilesOutsideOfPatterns";

// Set to true where no scope sets it: git reads the index on more than one
// thread (git 2.39 reads it on one unless told: its documentation says
// otherwise) and writes its end of index entries (EOIE), with which it
// reads the extensions on a thread of their own beside the entries. A lean
// clone's cache tree holds every store folder (65,000 at 10,000
// conversations): half of reading its index (docs/lean.md, "The index on
// two threads").
inline constexpr std::string_view kIndexThreads = "index.threads";
// Set beside it when lean set index.threads, so that --no-lean takes back
// lean's setting and never one of the user's own (one set before the
// clone, `git clone -c index.threads=true`, looks the same).
inline constexpr std::string_view kSetIndexThreads = "jpblob.leanSetIndexThreads";

// Whether git writes its end of index entries here, as git 2.39 decides
// it: index.recordEndOfIndexEntries, or else index.threads set to any
// count of threads but one (true, 0 and 2 write it; false and 1 do not).
bool records_end_of_entries(const GitCli& git);

// What moving blob files in and out of a lean work tree needs of a
// workspace (Workspace::lean_parts()): its repository, its work-tree store
// and its kept copies. All must outlive the parts.
struct LeanParts {
  const GitRepo& repo;
  const BlobStore& store;
  const KeptCopies* kept;
};

// Marks the index entries of `paths` (blob files) skip-worktree in every
// index of `indexes` and deletes their work-tree files, for each whose file
// holds exactly the object the first index stages (a file that differs, or
// is not staged, stays untouched). With `keeper`, a file leaves only when
// that index stages the same object too: `indexes` may be ones git throws
// away when the commit does not happen (`git commit -a`, `git commit
// <paths>`), and the index that stays must then still hold the blob.
// `keeper` is only read. `staged`: what the first index stages at `paths`
// (path -> blob id), when the caller has read it already. Returns how many
// left the work tree. `mark`, when given, marks the paths instead of
// `indexes`' set_skip_worktree (a clone's hook: in place).
using MarkSkipWorktree = std::function<void(const std::vector<std::string>&)>;
std::size_t drop_blob_files(const LeanParts& parts, const std::vector<GitCli>& indexes,
                            const std::vector<std::string>& paths, const GitCli* keeper = nullptr,
                            const std::unordered_map<std::string, std::string>* staged = nullptr,
                            const MarkSkipWorktree& mark = nullptr);

// What git's index holds, out of the work tree, under a blob's name, told
// the content the name stands for.
enum class GitCopy {
  None,     // nothing out of the work tree: the blob is written as usual
  Holds,    // exactly the content: no file is written, which would only make git look at it again
  Differs,  // not the content (planted under a predictable name): the write is refused
};
using HeldInIndex = std::function<GitCopy(const Digest&, std::string_view content)>;

// What clean asks before writing a blob in a lean work tree (NewBlobs):
// whether the index stages a copy of it (out of the work tree, or not
// marked so yet), and whether that copy holds the content. The index is
// read once, on the first blob that needs it; each copy is read and
// compared once, and only one holding the content stands for it (a planted
// corrupt one must not take the bytes' place). `repo` must outlive the
// result, which may be called from several threads at once.
HeldInIndex held_in_index(const GitRepo& repo);

// True when this work tree leaves the store out: core.sparseCheckout on and
// its own sparse-checkout file holds the store's exclusion. Read through
// libgit2, with no git process: Workspace::open asks on every filter start.
bool is_lean(const GitRepo& repo);

// Why this work tree keeps its store checked out, or nullopt when it may be
// lean: `jpblob.lean=false` (a user's or a repository's choice, any
// scope), `jpblob.smudge=refs` (JP with RFD 066 reads the files), or
// cone-mode sparse checkout (its patterns cannot leave one folder out).
std::optional<std::string> lean_refused(const GitCli& git);

// True when this work tree is lean or becomes lean at its next commit of
// blobs (lean_refused() gives no reason, read in-process, with no git
// process). Where git-jpblob's hook runs, such a tree's new blobs go to the
// git folder from its first add (Workspace::send_new_blobs_to_git_folder):
// an adopting repository's blobs never pass through the work tree
// (docs/lean.md, "An adopting repository's new blobs").
bool lean_or_becoming(const GitRepo& repo);

// True when the index `git` reads tracks a blob file of the store: the
// repository holds conversations' blobs. One git call that stops early.
bool tracks_blobs(const GitCli& git);

// The settings and patterns of a lean work tree (below), written where git
// reads them (config.worktree under extensions.worktreeConfig), with no
// file touched: the caller drops the blob files. Throws Error, changing
// nothing, when lean_refused() gives a reason.
void enter_lean(const RepoLayout& layout, const GitCli& git);

// Makes this work tree lean: core.sparseCheckout on (not cone mode), the
// store's exclusion added to its patterns (any others kept), and every
// staged blob whose file is unmodified dropped from the work tree
// (drop_blob_files); blobs not staged yet stay until their commit. Throws
// Error, changing nothing, when lean_refused() gives a reason.
void make_lean(const RepoLayout& layout, const GitCli& git, const LeanParts& parts);

// Undoes make_lean: the store's exclusion leaves this work tree's sparse
// patterns (and sparse checkout goes off where they were only the lean
// ones), the store's lines leave info/exclude, and git writes every
// committed blob file back. True when the tree was lean.
bool leave_lean(const RepoLayout& layout, const GitCli& git);

// The lines that keep blob files not committed yet out of git's untracked
// files in a lean work tree (info/exclude, shared by its worktrees): `git
// stash -u` and `git clean -d` delete untracked files, and a blob clean
// writes while stash adds a new conversation is one, which the stash would
// then reference and no longer hold. gc removes them once nothing
// references them. A lean tree already refuses `git add` of a blob path
// (it is outside the sparse patterns), so nothing is lost there; a tree
// that checks its store out keeps `git add $(git jpblob files …)` instead.
inline constexpr std::string_view kStoreIgnored =
    "# git-jpblob: blobs not committed yet survive `git stash -u` and `git clean -d`\n/.jp/blobs/\n";

// The template `git init` and `git clone` copy (init.templateDir), written
// under `dir`: git's own default template, plus the setting and patterns of
// a lean work tree, so that a clone never writes the committed blobs.
void write_lean_template(const std::filesystem::path& dir);

}  // namespace jpblob
