// The git program, with typed results: the one place that starts git and
// reads what it prints (libgit2 is core/git/git_repo).
//
// - Object ids are read by field, never at fixed offsets, so SHA-1 (40 hex)
//   and SHA-256 (64 hex) repositories both work.
// - Many paths reach git on standard input, NUL-terminated; no argument list
//   grows with the number of paths ("Argument list too long" cannot happen).
// - A path is passed as a pathspec only through literal_pathspec(), so a
//   folder named `7-[ab]` never matches `7-a`.
// - A failing command throws Error naming what was asked and git's message.
//
// Thread safety: a GitCli holds no mutable state; calls may run at once.
//
// GitCli is implemented over five files: git_cli.cpp (starting git, where
// a work tree's repository is: in_worktree, worktrees, layout; version,
// merge_texts), git_cli_config.cpp (the config_* calls,
// use_worktree_config), git_cli_index.cpp (the index: index_entries,
// index_ids, staged_changes, staging and unstaging, stage_out_of_tree,
// the skip-worktree bit, check_out_from_index), git_cli_history.cpp
// (commits, refs and the objects they hold: tree_entries, rev_list,
// included_revisions, stash_commits, in_progress_commits, read_blob,
// fetch_objects, blobs_in_history, filters_in_tree, lfs_smudge) and blob_pack.cpp (objects written as
// packs: write_blobs, write_trees_holding, add_many_to_index, filters_of,
// object_format).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_set>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/git/index_entry.hpp"

namespace jpblob {

struct PackObject;  // core/git/blob_pack

// ":(literal)<path>": a pathspec that matches exactly that path (or, for a
// folder, what is inside it).
std::string literal_pathspec(std::string_view path);

// Adds each folder above `path` ("a/b/c": "a/b", then "a") to `folders`, as
// views into `path`, stopping at one already there: its parents are in
// already. A store's 100,000 blob paths give at most 65,794 folders.
void add_folders_above(std::string_view path, std::unordered_set<std::string_view>& folders);

// True when a blob's content is a git-lfs pointer file.
bool is_lfs_pointer(std::string_view content);

// One staged change against HEAD (`git diff --cached --raw`).
struct RawChange {
  std::string old_mode, new_mode;
  std::string old_id, new_id;
  char status = 0;  // 'A', 'M', 'T', 'D', …
  std::string path;
};


// Where git keeps things for a work tree (`git rev-parse`).
struct RepoLayout {
  std::filesystem::path top;        // the work tree's top folder
  std::filesystem::path hooks;      // where git runs hooks from (core.hooksPath honoured)
  std::filesystem::path common_dir; // the main repository's git folder, shared by linked worktrees
  std::filesystem::path sparse_checkout;  // this worktree's info/sparse-checkout file
};

// Worktree: this work tree's own config.worktree when the repository has
// extensions.worktreeConfig (as `git sparse-checkout` sets it), else the
// repository's config: where git reads a work tree's own settings.
enum class ConfigScope { Local, Global, System, Worktree };
// "local", "global", "system", "worktree": git's name for a scope.
std::string config_scope_name(ConfigScope scope);

class GitCli {
 public:
  // Runs git in `cwd`; with `index_file`, every command uses that index
  // (GIT_INDEX_FILE) instead of the one git would choose.
  explicit GitCli(std::filesystem::path cwd, std::optional<std::filesystem::path> index_file = std::nullopt);
  GitCli with_index(std::filesystem::path index_file) const;
  // A GitCli in another worktree `top` of this repository, with that
  // worktree's own index named explicitly: a hook's environment carries
  // GIT_INDEX_FILE, which would otherwise make it read this one's.
  // Throws Error when `top` has no `.git` git can be found through.
  static GitCli in_worktree(const std::filesystem::path& top);

  // Every index entry matching a few pathspecs (magic allowed), all stages.
  std::vector<IndexEntry> index_entries(const std::vector<std::string>& pathspecs) const;
  // True when the index tracks anything at or below `path` (literal).
  bool tracks_any(const std::string& path) const;

  // The stage-0 id of each of many exact paths, in one `git cat-file
  // --batch-check -z`; a path that is not in the index is absent.
  std::unordered_map<std::string, std::string> index_ids(const std::vector<std::string>& paths) const;

  // Sets each entry's mode and id at its path (stage 0), as `git
  // update-index --index-info` does: no stat data.
  void set_index_ids(const std::vector<IndexEntry>& entries) const;
  // What the index changes against HEAD (against the empty tree before the
  // first commit) under a few pathspecs; renames are not detected.
  std::vector<RawChange> staged_changes(const std::vector<std::string>& pathspecs) const;

  // Adds (or refreshes) work-tree files in the index by exact path, as
  // `git update-index --add` does: no .gitignore, no filter question.
  void add_to_index(const std::vector<std::string>& paths) const;
  // The same for many files at once (a store checked out, whose commit
  // stages thousands of new blob files): the files no filter applies to
  // are written first as one pack (write_blobs), so that update-index finds
  // each object written where it would write one loose object a file, and
  // the trees holding them are written as a pack too (write_trees_holding).
  // What update-index hashes stays the truth: a file it hashes otherwise
  // (an eol attribute) gets its own object, and the pack's copy is garbage
  // for `git gc`. Files over `max_size` throw Error before anything is
  // staged.
  void add_many_to_index(const std::vector<std::string>& paths, std::uint64_t max_size) const;

  // Throws IndexEntryInTheWay (core/git/index_file) when the index holds
  // an entry (a file, a link, a submodule) where one of `paths` needs a
  // folder, or entries below one of `paths`: git's --index-info would
  // replace them without a word, and the commit would delete them. What
  // stage_out_of_tree asks before it has git stage; its own edit of the
  // index refuses the same.
  void refuse_files_above(const std::vector<std::string>& paths) const;

  // A blob file outside the work tree, to be staged under a tracked path.
  struct OutOfTree {
    std::string path;             // where the index holds it
    std::string file;             // its bytes, as they are (no filter): an absolute path
    std::string id;               // instead of `file`: a blob git's objects hold already
    // `id` holds the blob file's bytes as they are (a pending pack's),
    // not what the path's filter made of them: where a filter applies to
    // the path (git-lfs tracking the store), they go through it.
    bool raw = false;
  };
  // Stages files that live outside the work tree (a lean tree's new blobs,
  // core/lean/kept_copies): writes each file's bytes (at most `max_size`) to
  // git's objects and points its index entry at them, marked
  // skip-worktree, so git neither writes nor looks for a work-tree file.
  // Returns the entries with every id filled in, for another index. A few
  // git calls, whatever the count; a file git-lfs's filter applies to (its
  // path's attributes) goes through that filter, a few hundred a call.
  // Throws Error when git fails or a file cannot be read.
  std::vector<OutOfTree> stage_out_of_tree(std::vector<OutOfTree> entries, std::uint64_t max_size) const;

  // Writes files' bytes, as they are (no filter), to git's objects as one
  // pack stream (core/git/blob_pack): kept as a pack when there are many,
  // loose objects when there are few, as a fetch does. Returns each file's
  // object id in order. Throws Error when a file is larger than `max_size`
  // or unreadable, or git fails. git checks each object as it reads it;
  // what a failed call did write is referenced by nothing and goes at the
  // next `git gc`.
  std::vector<std::string> write_blobs(const std::vector<std::string>& files, std::uint64_t max_size) const;
  // The folder this process writes a pack and its index into itself
  // (objects/pack), or nothing where git's index-pack must: a shared
  // repository, a folder that is not there.
  std::optional<std::filesystem::path> own_pack_folder() const;
  // Writes, as one pack, the tree objects that the index makes of the
  // folders holding `paths` (many just staged), below the folder they share:
  // the cache tree `git commit` then computes finds each written already,
  // where it would write thousands of `aa/bb` trees as loose objects and
  // leave them for `git gc --auto`. Only worth it for many paths; a no-op
  // for fewer than a hundred, or where the index holds a conflict there.
  // Returns how many trees it wrote.
  std::size_t write_trees_holding(const std::vector<std::string>& paths) const;
  // The repository's object format: "sha1" or "sha256".
  std::string object_format() const;

  // Removes exact paths from the index; only those it holds, so the index
  // is not even locked when none is. A lock held by another git is waited
  // out for two seconds, as git itself would. Returns how many it removed.
  std::size_t remove_from_index(const std::vector<std::string>& paths) const;

  // `git add` of exact paths (the filter runs, as for a user's add).
  void add(const std::vector<std::string>& paths) const;
  // `git rm -r` of a folder (literal), inside a sparse checkout's patterns
  // or out of them: its entries leave the index, and its work-tree files
  // that match them leave the work tree. Refused, changing nothing, when
  // a file differs from its entry (git's message).
  void remove_tracked(const std::string& folder) const;
  // Refreshes the stat data of every index entry whose file holds what it
  // stages (`git update-index -q --refresh`), so that status need not
  // read them again; an entry whose file differs stays as it is.
  void refresh_index() const;
  // Commits the index as `git commit` does, with no hook run (the commit
  // is git-jpblob's own, as `git lfs migrate` writes its commits), and
  // returns the new commit's id.
  std::string commit(const std::string& message) const;

  // Every entry below `pathspecs` in a commit's tree, at any depth.
  std::vector<TreeEntry> tree_entries(const std::string& commit, const std::vector<std::string>& pathspecs) const;

  // Every commit reachable from any ref; empty in a repository without one.
  std::vector<std::string> all_commits() const;

  // `git rev-list` with these arguments (revisions and options), one line
  // per commit (its id, and with --parents its parents' after it).
  std::vector<std::string> rev_list(const std::vector<std::string>& args) const;

  // The ids `revisions` include, not those they exclude (`A..B` gives B's),
  // as `git rev-parse --revs-only` reads them; every ref's (and HEAD's)
  // when `revisions` is empty.
  std::vector<std::string> included_revisions(const std::vector<std::string>& revisions) const;

  // The loose commits whose files were written at or after `since`: what
  // git's prune keeps, with everything they reach, however unreachable (a
  // dropped stash entry, an amended commit), for as long as gc.pruneExpire
  // gives an object. One listing of the object folders, one `cat-file`.
  std::vector<std::string> recent_loose_commits(std::time_t since) const;

  // The object ids `remote` (a name or URL) advertises for its refs now
  // (`git ls-remote`); nullopt when it cannot be asked.
  std::optional<std::vector<std::string>> advertised_ids(const std::string& remote) const;

  // The commit a revision names, or nullopt when it names none.
  std::optional<std::string> resolve_commit(const std::string& rev) const;

  // Every commit that holds a stash entry's state: each entry's work-tree
  // commit, its index commit and, for `stash -u`, its untracked-files
  // commit. Empty when there is no stash.
  std::vector<std::string> stash_commits() const;

  // The same for the autostash of an operation in progress in this
  // worktree (`rebase --autostash`, `rebase.autoStash`, `merge
  // --autostash`), which git keeps outside the stash until the operation
  // ends (rebase-merge/autostash, rebase-apply/autostash, MERGE_AUTOSTASH)
  // and then applies: its work-tree, index and untracked commits. Empty
  // when there is none.
  std::vector<std::string> autostash_commits() const;

  // The commits an operation in progress in this worktree can go back to
  // or still needs: MERGE_HEAD, CHERRY_PICK_HEAD, REVERT_HEAD, REBASE_HEAD,
  // ORIG_HEAD, and the commits a rebase has yet to replay.
  std::vector<std::string> in_progress_commits() const;

  // The top folder of every worktree of the repository, this one included.
  std::vector<std::filesystem::path> worktrees() const;

  // The content of a blob object, fetched from the promisor remote when a
  // partial clone lacks it (git does that; libgit2 cannot); nullopt when
  // git cannot give it.
  std::optional<std::string> read_blob(const std::string& id) const;

  // Fetches these objects from `remote` (a partial clone's promisor) in one
  // fetch, as git's own lazy fetch of one object does; true on success.
  bool fetch_objects(const std::string& remote, const std::vector<std::string>& ids) const;

  // Every blob below `folder` (a literal path) in any commit reachable from
  // any ref, the stash included: (path, id) pairs, each object once. Blobs
  // a partial clone lacks are listed too, without being fetched.
  std::vector<std::pair<std::string, std::string>> blobs_in_history(const std::string& folder) const;

  // git-lfs's smudge of a pointer file (`git lfs smudge`), which reads its
  // local store or downloads the object; nullopt when git-lfs is missing
  // or fails.
  std::optional<std::string> lfs_smudge(const std::string& pointer, const std::string& path) const;

  // git's own version ("2.39.5"), from `git --version`.
  std::string version() const;

  // The layout around cwd, or nullopt when cwd is not in a work tree.
  std::optional<RepoLayout> layout() const;

  // A config value at a scope (every scope with nullopt, as git reads it);
  // nullopt when unset. `type` is git's --type ("bool", …) or empty. Read
  // settings through ConfigReader::through (core/git/config_reader).
  std::optional<std::string> config_get(const std::string& key, std::optional<ConfigScope> scope,
                                        const std::string& type = {}) const;
  // The same from where `git config` is told to read (a scope's flag,
  // `--file <path>`, or nothing for every scope).
  std::optional<std::string> config_get_from(std::vector<std::string> where, const std::string& key,
                                             const std::string& type = {}) const;
  void config_set(const std::string& key, const std::string& value, ConfigScope scope) const;
  // Lets each worktree of the repository whose git folder is `common_dir`
  // hold settings of its own (extensions.worktreeConfig), as `git
  // sparse-checkout` does before it sets a worktree's: with more than one
  // worktree, git refuses `config --worktree` until then. As git does it,
  // core.bare=true and core.worktree move from the shared config to the
  // main worktree's config.worktree, where they keep meaning what they
  // meant for it alone. Nothing happens when the extension is on already.
  void use_worktree_config(const std::filesystem::path& common_dir) const;
  // True when something was unset.
  bool config_unset(const std::string& key, ConfigScope scope) const;
  // Where git reads `key` from, as `git config --show-scope --show-origin`
  // tells it (the last value wins, as git reads it); nullopt when unset.
  struct ConfigOrigin {
    std::string value;
    std::string scope;   // "global", "local", "system", "worktree", "command"
    std::string origin;  // "file:/home/me/.gitconfig", "command line:"
  };
  std::optional<ConfigOrigin> config_origin(const std::string& key) const;
  // Removes a section when no key is left in it; true when removed.
  bool config_remove_empty_section(const std::string& section, ConfigScope scope) const;

  // Sets (or clears) the skip-worktree bit of index entries: git neither
  // writes nor looks at their work-tree files.
  void set_skip_worktree(const std::vector<std::string>& paths, bool on = true) const;
  // Sets the bit by editing the index file in place (core/git/index_file),
  // which keeps every entry's stat data, the cache tree and the index's
  // own timestamp: git's write would re-check the racily clean entries
  // with the clean filter. False, having changed nothing, where that
  // cannot be done safely: then use set_skip_worktree. `end_of_entries`:
  // write git's EOIE even where the index has none (index_file.hpp).
  bool set_skip_worktree_in_place(const std::vector<std::string>& paths, bool end_of_entries = false) const;
  // Makes the index's cache tree whole again (git write-tree: its trees are
  // in git's objects already). update-index drops the cache tree of every
  // folder an entry it marks is in, and without it each `git status` walks
  // HEAD's whole tree against the index. A no-op where write-tree cannot
  // run (an unmerged index); false then.
  bool rebuild_cache_tree() const;
  // Writes the index's version of each of `paths` to the work tree
  // (git checkout-index -f), one git call.
  void check_out_from_index(const std::vector<std::string>& paths) const;

  // A line-by-line three-way merge of three texts (`git merge-file`), with
  // conflict markers of `marker_size` labelled ours/base/theirs. Returns the
  // result and whether it holds conflicts. Throws Error when git fails.
  struct LineMerge {
    std::string text;
    bool conflict;
  };
  LineMerge merge_texts(std::string_view ours, std::string_view base, std::string_view theirs,
                        int marker_size) const;

  // The index file this GitCli's git commands use, absolute; nothing when
  // git cannot say.
  std::optional<std::filesystem::path> index_path() const;

  // Each path's `filter` attribute, "" where none applies, in one
  // `git check-attr`.
  std::unordered_map<std::string, std::string> filters_of(const std::vector<std::string>& paths) const;

  // Each path's `filter` attribute ("" where none applies) as one commit's
  // own attributes files say: `attribute_files` are that tree's
  // `.gitattributes` entries (path and blob id), put in a scratch index for
  // `git check-attr --cached` (git 2.39 has no `--source`), so that git's
  // own rules (macros, nesting, patterns) decide. The user's attributes file
  // (core.attributesFile) is left out: it is nobody's commit. Throws Error
  // when git cannot be asked.
  std::unordered_map<std::string, std::string> filters_in_tree(const std::vector<TreeEntry>& attribute_files,
                                                               const std::vector<std::string>& paths) const;

 private:
  struct Output {
    int status;
    std::string out, err;
  };
  Output run(std::vector<std::string> args, const std::string& input = {}) const;
  // Objects into git's objects as one pack stream; their ids in order.
  std::vector<std::string> write_objects(std::vector<PackObject> objects, const std::string& format,
                                         std::uint64_t max_size) const;
  // run(), throwing Error("cannot <what>: <git's message>") on failure.
  std::string must(const std::string& what, std::vector<std::string> args, const std::string& input = {}) const;

  std::filesystem::path cwd_;
  std::optional<std::filesystem::path> index_file_;
};

}  // namespace jpblob
