// A thin wrapper over libgit2 1.5 for what git-jpblob reads from git.
//
// libgit2 1.5 has gaps that this module works around, each covered by a
// test in tests/unit/git_repo_test.cpp:
// - With GIT_REPOSITORY_OPEN_FROM_ENV it ignores GIT_WORK_TREE, so open()
//   reads GIT_DIR / GIT_WORK_TREE itself and sets the work tree explicitly.
// - It refuses repositories with extensions it does not know, such as
//   extensions.worktreeConfig; the guard declares those git-jpblob can use
//   safely (it only reads objects, the index and config). Once declared,
//   worktreeConfig opens but config.worktree is not read; open() adds it.
// - It ignores `git -c` settings, which git passes to filters and hooks in
//   GIT_CONFIG_PARAMETERS (and GIT_CONFIG_COUNT/KEY_n/VALUE_n); config()
//   applies them on top of the files, as git does.
// - It honours GIT_INDEX_FILE only when asked; index() does.
// - It reads no split index (core.splitIndex, the `link` extension): the
//   index reads and the hook's restaging then go through `git ls-files` and
//   `git update-index` (also e2e lean_work_tree, a split-index clone).
// - It opens no SHA-256 repository (extensions.objectformat): open() throws
//   UnsupportedRepository, install refuses such a repository in one line,
//   and the filter, the hooks, textconv and the merge driver step aside
//   there, so no git command is blocked (e2e sha256_repos, and
//   GitRepo.ASha256RepositoryIsRefusedWithItsOwnError). The code paths that
//   go through git (packs, index edits) are tested in SHA-256 repositories.
// - It never returns from reading a truncated loose object (git calls it
//   corrupt). git-jpblob reads every loose object itself: blobs directly
//   (read_loose_blob, two to three times faster with libdeflate), trees,
//   commits and tags through an object-database backend put ahead of
//   libgit2's (install_loose_reader); a corrupt one is an error naming the
//   object and its file (GitRepo.ATruncatedLooseTreeOrCommitIsAnErrorNotAHang,
//   which never returns without the backend). Packed objects are libgit2's.
//
// GitRepo is implemented over four files: git_repo.cpp (libgit2's set-up,
// opening, the environment, index() and config), git_repo_index.cpp (the
// index: read_staged, index_entries, set_index_entry_id),
// git_repo_trees.cpp (commits' trees and refs: read_head, blob_id_at,
// blobs_below, changed_blobs, has_ref) and git_repo_objects.cpp (the
// object database: read_object, has_object, object_size, hash_blob,
// write_blob, and the loose reader).
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/base/error.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/index_entry.hpp"

struct git_repository;
struct git_index;
struct git_config;
struct git_tree;
struct git_oid;

namespace jpblob {

// Throws Error("<what>: <libgit2 message>") when rc < 0.
void check_git(int rc, const std::string& what);

// Initialises libgit2 once per process and declares the extensions above.
// Thread-safe; cheap after the first call.
void ensure_libgit2();

struct RepoDeleter {
  void operator()(git_repository* r) const;
};
struct IndexDeleter {
  void operator()(git_index* i) const;
};
struct ConfigDeleter {
  void operator()(git_config* c) const;
};

// `git -c` settings from the environment, in the order git applies them.
// Keys are returned as written by git (section and name lower-cased).
std::vector<std::pair<std::string, std::string>> command_line_config();

// The last `git -c` value for `key` (compared case-insensitively, as git's
// section and variable names are), or nullopt.
std::optional<std::string> command_line_config_value(const std::string& key);

// A config value in git's integer syntax (digits with an optional k, m or
// g suffix) or boolean syntax (true/yes/on/1, false/no/off/0, any case),
// read by libgit2's own parsers so every form git accepts is accepted.
// Throws Error naming `key` otherwise; a negative size is refused.
std::uint64_t parse_config_size(const std::string& key, const std::string& value);
bool parse_config_bool(const std::string& key, const std::string& value);

// The version of the libgit2 this program runs with ("1.5.1"), as the
// library itself reports it (not the headers it was built against).
std::string libgit2_version();

// What GitRepo::open throws for a repository libgit2 1.5 cannot read at
// all: one whose objects are named by SHA-256 (`git init
// --object-format=sha256`, extensions.objectFormat), a gap of libgit2 1.5,
// which reads SHA-1 repositories only. In such a repository the filter and
// the hooks step aside with a warning, so that no git command is blocked,
// and install refuses it before writing anything.
class UnsupportedRepository : public Error {
 public:
  using Error::Error;
};

class GitRepo {
 public:
  // The repository git would use for a command run in `cwd`, with the
  // environment's GIT_DIR, GIT_WORK_TREE and GIT_INDEX_FILE honoured, and
  // GIT_OBJECT_DIRECTORY and GIT_ALTERNATE_OBJECT_DIRECTORIES (the
  // quarantine git's hooks of a received push read objects from).
  // Returns nullopt when `cwd` is not inside a repository; throws Error when
  // it is but the repository cannot be opened.
  static std::optional<GitRepo> open(const std::filesystem::path& cwd);

  git_repository* get() const { return repo_.get(); }

  // This repository's lock. A libgit2 repository, and the index it keeps,
  // is used by one thread at a time: every caller that may run beside
  // another thread using the same GitRepo (delayed smudges' lookups, the
  // lean store's questions from clean) holds it around each call. One lock
  // for all of them: a lock of one's own guards nothing against the others.
  std::unique_lock<std::mutex> lock() const { return std::unique_lock(*mutex_); }
  // The work tree's top folder, or nullopt for a bare repository.
  std::optional<std::filesystem::path> workdir() const { return workdir_; }
  std::filesystem::path gitdir() const;

  // The index git would use now: $GIT_INDEX_FILE when set, else the
  // repository's. Re-read from disk on each call.
  std::unique_ptr<git_index, IndexDeleter> index() const;

  // Raw bytes of the file at `path` (relative to the work tree, '/'
  // separated) as staged in the index / as committed in HEAD; nullopt when
  // it is not there (or there is no HEAD yet).
  std::optional<std::string> read_staged(std::string_view path) const;
  // The stage-0 entries below `folder`, all of them or only those that
  // carry the skip-worktree bit (git neither writes nor looks at their
  // files): path and blob id.
  enum class Entries { All, SkipWorktree };
  std::vector<IndexEntry> index_entries(std::string_view folder, Entries which) const;
  std::optional<std::string> read_head(std::string_view path) const;

  // The id of the blob at `path` in the tree of `rev` (a commit or tree
  // id, or any revision); nullopt when there is none. The blob itself may
  // be absent from a partial clone: read it with read_object, or through
  // git, which fetches it. The trees on the way are kept by tree id (a
  // name like HEAD is resolved each call): a checkout asks for thousands of
  // blobs in one commit, and each then costs one look-up in its folder's
  // tree.
  std::optional<std::string> blob_id_at(const std::string& rev, std::string_view path) const;

  // Every blob below the folders `roots` in the trees of `commits` (ids),
  // as `git ls-tree -r` lists them, for many commits at once: a folder met
  // again at the same path with the same tree id (unchanged between
  // commits) is not walked again, so a reflog of hundreds of commits costs
  // what differs between them, where `git ls-tree -r` a commit read every
  // tree of each. nullopt when a commit or a tree on the way cannot be
  // read (a partial clone lacks it): git can fetch it, libgit2 cannot.
  // Folders in `skip` (exact paths) are not walked.
  std::optional<std::vector<TreeEntry>> blobs_below(const std::vector<std::string>& commits,
                                                    const std::vector<std::string>& roots,
                                                    const std::vector<std::string>& skip = {}) const;

  // The paths below the folders `roots` where `commit` holds a blob that
  // `parent` (commit ids) does not hold at that path: added or changed, as
  // `git diff-tree -r` lists them, from trees compared by id (a folder
  // unchanged between the two is not walked, so the cost is what differs).
  // nullopt when a tree cannot be read (a partial clone lacks it).
  std::optional<std::unordered_set<std::string>> changed_blobs(const std::string& parent, const std::string& commit,
                                                               const std::vector<std::string>& roots) const;

  // True when the reference `name` ("refs/stash") exists, loose or packed.
  bool has_ref(const std::string& name) const;

  // The content of the blob object with this hex id, read from the object
  // database alone (no index); nullopt when absent. A loose object is read
  // by read_loose_blob, anything else by libgit2.
  std::optional<std::string> read_object(const std::string& hex) const;

  // A config value from the repository's config files with `git -c`
  // settings applied on top; nullopt when unset. Read settings through
  // ConfigReader::of (core/git/config_reader), which calls this.
  std::optional<std::string> config(const std::string& key) const;

  // The remote a partial clone fetches missing objects from
  // (extensions.partialClone, else the first remote.<name>.promisor that is
  // true), or nullopt in a repository that is not a partial clone.
  std::optional<std::string> promisor_remote() const;

  // True when the object database holds this object (no lazy fetch). The
  // packs are the ones listed when the database was first used: a miss
  // does not list them again, so an object packed by a concurrent git
  // since then may be reported absent (never the other way round).
  bool has_object(const std::string& hex) const;

  // The size of the object with this hex id, from its header alone;
  // nullopt when the object database lacks it (no lazy fetch).
  std::optional<std::uint64_t> object_size(const std::string& hex) const;

  // The id git would give `content` as a blob, in hex; nothing is written.
  std::string hash_blob(std::string_view content) const;
  // Writes `content` as a blob object; returns its id in hex.
  std::string write_blob(std::string_view content) const;

  // Points the stage-0 entry for `path` in the index file `index_file` at
  // the blob `id`, keeping the entry's stat data (so a work-tree file that
  // did not change does not look modified), and writes the index. Does
  // nothing when the index has no such entry.
  void set_index_entry_id(const std::filesystem::path& index_file, const std::string& path,
                          const std::string& id) const;

  // The main repository's git folder, shared by every linked worktree.
  std::filesystem::path commondir() const;

 private:
  explicit GitRepo(git_repository* repo);
  // git itself, run at the top of the work tree, for an index libgit2
  // cannot read (index_entries, read_staged).
  GitCli index_reader() const;
  // The blob `oid`, its loose file read first (read_loose_blob, from
  // object_dirs_), else through libgit2; nullopt when the object database
  // lacks it. `what` names it in an error.
  std::optional<std::string> read_blob(const git_oid* oid, const std::string& what) const;
  void add_worktree_config();
  // Reads objects from $GIT_OBJECT_DIRECTORY and
  // $GIT_ALTERNATE_OBJECT_DIRECTORIES when set, as git does.
  void use_environment_objects();
  struct TreeCache;
  // The folder's tree in `rev` (an object id), or null when there is none.
  const git_tree* tree_at(const std::string& rev, std::string_view folder) const;
  std::unique_ptr<git_repository, RepoDeleter> repo_;
  // Trees by "<object id>:<folder>"; shared by moved copies, like repo_.
  std::shared_ptr<TreeCache> trees_;
  std::shared_ptr<std::mutex> mutex_ = std::make_shared<std::mutex>();  // shared by moved copies too
  std::optional<std::filesystem::path> workdir_;
  std::filesystem::path cwd_;
  // Where loose objects are looked for (read_loose_blob), in git's order:
  // the object folder, the environment's alternates, then each folder's
  // info/alternates.
  std::vector<std::filesystem::path> object_dirs_;
};

// The content of the loose blob object `hex` in the object folder
// `objects` (`<common dir>/objects`, an alternate), or nullopt when there is no loose
// object of that id or it is not a blob (packed, absent, a tree: libgit2
// then reads it, or says what is wrong). Throws Error naming the file when
// the loose object is corrupt: libgit2 1.5 never returns from reading a
// truncated one (unit GitRepo.LooseBlobsReadAsLibgit2ReadsThem). zlib
// inflates only the header; libdeflate the whole object, at two to three
// times zlib's speed, which libgit2 1.5 uses: gc and verify read every
// staged conversation, and most of their time was that inflate.
std::optional<std::string> read_loose_blob(const std::filesystem::path& objects, std::string_view hex);

// Has libgit2 read `repo`'s loose objects (of any type) as read_loose_blob
// does, from `dirs` (GitRepo's object folders): a corrupt one is an error
// naming its file, where libgit2 1.5's own loose reader never returns from
// a truncated one, and trees and commits inflate with libdeflate too.
// Packed objects, and writing, stay libgit2's.
void install_loose_reader(git_repository* repo, const std::vector<std::filesystem::path>& dirs);

// While one lives, every object read is hashed again and compared with its
// id, as `git fsck` does: libgit2's strict hash verification, and
// read_loose_blob's own check. verify holds one, so that an object file
// holding another object's bytes is named, not read as the document it
// stands for. Off otherwise: the hooks, gc and smudge check each blob
// against its SHA-256 name and parse each document, and hashing every
// object again cost a tenth of a large commit's hook.
class ObjectIdChecks {
 public:
  ObjectIdChecks();
  ~ObjectIdChecks();
  ObjectIdChecks(const ObjectIdChecks&) = delete;
  ObjectIdChecks& operator=(const ObjectIdChecks&) = delete;
};

}  // namespace jpblob
