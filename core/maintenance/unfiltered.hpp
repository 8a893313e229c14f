// A document committed without the filter (SPEC §6): a teammate without
// git-jpblob, `git commit --no-verify` with the filter off, a tool that
// wrote the index. Its commit holds payloads inline where the commit's own
// `.gitattributes` route the path to the jpblob filter; JP cannot read the
// references around them, every clone shows the file modified after a
// checkout while `git diff` prints nothing, and nothing else complains (as
// `git lfs fsck --pointers` finds a file committed without git-lfs's
// filter). `verify --history`, pre-push and pre-receive find it through
// CommitChecker, `status` through the index (core/maintenance/blob_status).
//
// Why it is decided so:
// - What clean would move out is document_needs' answer (the question the
//   pre-commit hook and the filter ask of what is staged), at the
//   jpblob.minSize of the commit's own `.jpblobconfig` (else the personal
//   setting, which is what clean used there): no heuristic of its own.
// - Whose attributes: the commit's own, read by git from its
//   `.gitattributes` files (GitCli::filters_in_tree). A commit from before
//   adoption has no jpblob line and is never flagged; so is a file a later
//   commit carries over unchanged (adoption without `--renormalize`, a merge
//   that takes a pre-adoption side as it is): only a document object no
//   parent holds at that path is looked at, and only a payload no parent's
//   version holds inline counts. A merge driver result that keeps a
//   pre-adoption side's payloads inline (it may reference only blobs its
//   sides hold) is then not flagged either; a rebase of that side is, since
//   the payloads enter adopted history there.
// - Cost: the CommitChecker's own scan of each document object (cached by
//   object id) tells whether it holds any payload inline at all; only those
//   reach this check, and a commit whose attributes files never name jpblob
//   ends it without starting git. Then only an object no parent holds at
//   its path, and only one bringing a payload in (scanned once per object
//   and size) has its attributes asked of git, once per set of attributes
//   files and path.
// - When: while a branch still holds what the commit brought in
//   (CommitChecker::drop_mended). Such a commit checks out whole, and
//   docs/USING.md's merges of a pre-adoption branch (a rebase, a
//   cherry-pick) keep new content inline until the next commit through the
//   hook stores it; once one has, the commit is history, not a problem.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/base/problem.hpp"
#include "core/documents/document.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"

namespace jpblob {

// The payloads clean would move out of `text`, a document in the committed
// form (what a commit or the index holds), with `min_size` as
// jpblob.minSize: empty when there is none, or when `text` is not readable
// as its kind (the filter passes such a file through).
std::vector<Digest> payloads_clean_would_store(DocumentKind kind, std::string_view text, std::uint64_t min_size);

// The exact commands that mend a commit holding a document below `root`
// (".jp", ".claude/projects") committed without the filter: the problem's
// mend, for the refusals and verify.
std::string unfiltered_commit_mend(std::string_view root);

// The document root ("." + …, from document_roots()) `path` is below.
std::string document_root_of(std::string_view path);

// A document of a commit that holds some payload inline (at any size):
// what CommitChecker hands over.
struct UnfilteredCandidate {
  std::string path, id;
  DocumentKind kind;
};

// Not thread-safe; one per walk, beside its CommitChecker. `repo` and `git`
// must outlive it.
class UnfilteredCheck {
 public:
  // `default_min_size`: jpblob.minSize where a commit holds no
  // `.jpblobconfig` that sets it (the personal setting).
  UnfilteredCheck(const GitRepo& repo, const GitCli& git, std::uint64_t default_min_size)
      : repo_(repo), git_(git), default_min_size_(default_min_size) {}

  // Adds one problem (ProblemKind::Unfiltered, naming commit and file, with
  // the mend) for each candidate of `commit` (parents `parents`; none for a
  // root commit) that no parent holds as the same object, that the commit's
  // `attribute_files` (its `.gitattributes` entries) route to
  // filter=jpblob, and that holds a payload clean would store that no
  // parent's version holds inline. `shared_config`: the object id of the
  // commit's `.jpblobconfig`, empty when it has none. Throws Error when git
  // cannot read the attributes.
  void check(const std::string& commit, const std::vector<std::string>& parents,
             const std::vector<UnfilteredCandidate>& candidates, const std::vector<TreeEntry>& attribute_files,
             const std::string& shared_config, std::vector<Problem>& problems);

  // The payloads clean would store that the document `c` of a commit with
  // these `attribute_files` and `shared_config` holds inline where they
  // route it to filter=jpblob (none where they do not): what a tip still
  // holds, whoever brought it in.
  std::vector<Digest> unfiltered_payloads(const UnfilteredCandidate& c, const std::vector<TreeEntry>& attribute_files,
                                          const std::string& shared_config);
  // The payloads the problem whose line is `line` (one check() added)
  // found brought in; null for any other line.
  const std::vector<Digest>* brought_in(const std::string& line) const;

 private:
  bool names_jpblob(const std::vector<TreeEntry>& attribute_files);
  std::uint64_t min_size_of(const std::string& shared_config);
  const std::vector<Digest>& inline_payloads(const std::string& id, DocumentKind kind, std::uint64_t min_size);
  std::vector<UnfilteredCandidate> under_jpblob(std::vector<UnfilteredCandidate> candidates,
                                                const std::vector<TreeEntry>& attribute_files);

  const GitRepo& repo_;
  const GitCli& git_;
  std::uint64_t default_min_size_;
  std::unordered_map<std::string, bool> names_jpblob_;          // attributes file id -> holds "jpblob"
  std::unordered_map<std::string, std::uint64_t> min_sizes_;   // .jpblobconfig id -> jpblob.minSize
  std::map<std::pair<std::string, std::uint64_t>, std::vector<Digest>> payloads_;  // (id, min size) -> payloads
  // attributes files (paths and ids) -> path -> routed to jpblob
  std::unordered_map<std::string, std::unordered_map<std::string, bool>> routed_;
  std::unordered_map<std::string, std::vector<Digest>> brought_;  // problem line -> payloads it brought in
};

}  // namespace jpblob
