#include "pre_commit.hpp"

#include <git2.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>

#include "core/blob_store.hpp"
#include "core/error.hpp"
#include "core/fs.hpp"
#include "core/payload.hpp"
#include "core/transform.hpp"
#include "core/workspace.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

template <auto Free>
struct Deleter {
  template <typename T>
  void operator()(T* p) const {
    Free(p);
  }
};
using IndexPtr = std::unique_ptr<git_index, Deleter<git_index_free>>;
using TreePtr = std::unique_ptr<git_tree, Deleter<git_tree_free>>;
using BlobPtr = std::unique_ptr<git_blob, Deleter<git_blob_free>>;
using DiffPtr = std::unique_ptr<git_diff, Deleter<git_diff_free>>;

constexpr std::string_view kConversations = ".jp/conversations/";
constexpr std::string_view kBlobs = ".jp/blobs/";

bool is_conversation(std::string_view path) {
  return path.starts_with(kConversations) && path.ends_with("/events.json");
}

std::optional<std::string> blob_content(git_repository* repo, const git_oid& id,
                                        const std::string& what) {
  git_blob* raw = nullptr;
  const int rc = git_blob_lookup(&raw, repo, &id);
  if (rc == GIT_ENOTFOUND) return std::nullopt;
  check_git(rc, "cannot read " + what);
  BlobPtr blob(raw);
  return std::string(static_cast<const char*>(git_blob_rawcontent(raw)),
                     static_cast<std::size_t>(git_blob_rawsize(raw)));
}

// The index entry for a file in the work tree, with its stat data, so git
// sees the entry as up to date and never re-reads the file.
git_index_entry entry_for(const std::string& path, const struct stat& st, const git_oid& id) {
  git_index_entry e{};
  e.ctime.seconds = static_cast<int32_t>(st.st_ctim.tv_sec);
  e.ctime.nanoseconds = static_cast<uint32_t>(st.st_ctim.tv_nsec);
  e.mtime.seconds = static_cast<int32_t>(st.st_mtim.tv_sec);
  e.mtime.nanoseconds = static_cast<uint32_t>(st.st_mtim.tv_nsec);
  e.dev = static_cast<uint32_t>(st.st_dev);
  e.ino = static_cast<uint32_t>(st.st_ino);
  e.mode = GIT_FILEMODE_BLOB;
  e.uid = st.st_uid;
  e.gid = st.st_gid;
  e.file_size = static_cast<uint32_t>(st.st_size);
  e.id = id;
  e.path = path.c_str();
  return e;
}

bool stat_matches(const git_index_entry& e, const struct stat& st) {
  return e.mtime.seconds == static_cast<int32_t>(st.st_mtim.tv_sec) &&
         e.mtime.nanoseconds == static_cast<uint32_t>(st.st_mtim.tv_nsec) &&
         e.file_size == static_cast<uint32_t>(st.st_size);
}

class Hook {
 public:
  explicit Hook(const fs::path& cwd) : ws_(Workspace::open(cwd)) {
    if (!ws_.repo() || !ws_.repo()->workdir())
      throw Error("pre-commit must run in a repository with a work tree");
    repo_ = ws_.repo()->get();
    top_ = *ws_.repo()->workdir();
    index_ = IndexPtr(ws_.repo()->index().release());
    // `git commit <paths>` commits a temporary index, then the real one
    // (held as index.lock): both must get the same staging.
    if (const char* file = std::getenv("GIT_INDEX_FILE");
        file && fs::path(file).filename().string().starts_with("next-index-")) {
      const fs::path real = ws_.repo()->gitdir() / "index.lock";
      if (fs::exists(real)) {
        git_index* raw = nullptr;
        check_git(git_index_open(&raw, real.c_str()), "cannot open " + real.string());
        real_index_ = IndexPtr(raw);
      }
    }
    git_object* head = nullptr;
    const int rc = git_revparse_single(&head, repo_, "HEAD^{tree}");
    if (rc == 0) head_ = TreePtr(reinterpret_cast<git_tree*>(head));
    else if (rc != GIT_ENOTFOUND && rc != GIT_EUNBORNBRANCH) check_git(rc, "cannot read HEAD");
  }

  PreCommitReport run() {
    const Changes changes = staged_changes();
    for (const std::string& path : changes.modified_blobs)
      problem(path + " is a tracked blob whose content is being changed; a blob never changes: "
                     "git checkout HEAD -- " + path);
    for (const std::string& path : changes.added_blobs) verify_added_blob(path);
    for (const std::string& path : changes.conversations) check_conversation(path);
    if (report_.problems.empty() && dirty_) {
      for (git_index* index : {index_.get(), real_index_.get()})
        if (index) check_git(git_index_write(index), "cannot write the index");
    }
    return report_;
  }

 private:
  struct Changes {
    std::vector<std::string> conversations;   // added or modified against HEAD
    std::vector<std::string> added_blobs;     // blob files new against HEAD
    std::vector<std::string> modified_blobs;  // blob files whose content changes
  };

  // What the commit changes under .jp/, against HEAD. The index is written
  // as a tree (cheap: git has just refreshed its cache-tree) and diffed
  // with HEAD's; a tree diff skips every identical subtree by its id, so
  // the cost grows with what is staged, not with the repository.
  Changes staged_changes() {
    Changes changes;
    std::size_t pos = 0;
    if (git_index_find_prefix(&pos, index_.get(), ".jp/") != 0) return changes;  // no .jp at all
    git_oid tree_id;
    check_git(git_index_write_tree_to(&tree_id, index_.get(), repo_), "cannot write the index as a tree");
    git_tree* raw = nullptr;
    check_git(git_tree_lookup(&raw, repo_, &tree_id), "cannot read the index tree");
    TreePtr staged(raw);
    git_diff_options opts;
    check_git(git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION), "cannot set up a diff");
    char prefix[] = ".jp/";
    char* paths[] = {prefix};
    opts.pathspec.strings = paths;
    opts.pathspec.count = 1;
    git_diff* diff = nullptr;
    check_git(git_diff_tree_to_tree(&diff, repo_, head_.get(), staged.get(), &opts),
              "cannot compare the index with HEAD");
    DiffPtr owned(diff);
    for (std::size_t i = 0, n = git_diff_num_deltas(diff); i < n; ++i) {
      const git_diff_delta* d = git_diff_get_delta(diff, i);
      if (d->status == GIT_DELTA_DELETED) continue;
      const std::string path = d->new_file.path;
      if (is_conversation(path)) {
        changes.conversations.push_back(path);
      } else if (path.starts_with(kBlobs)) {
        (d->status == GIT_DELTA_ADDED ? changes.added_blobs : changes.modified_blobs).push_back(path);
      }
    }
    return changes;
  }

  // A blob file staged by hand (git add .jp/blobs) must still be what its
  // name says.
  void verify_added_blob(const std::string& path) {
    const std::string name = fs::path(path).filename().string();
    if (!name.ends_with(".blob.gz")) return;  // not a blob file: not ours to judge
    auto digest = Digest::from_hex(name.substr(0, name.size() - 8));
    if (!digest || path != std::string(kBlobs) + blob_relative_path(*digest)) return;
    const git_index_entry* e = git_index_get_bypath(index_.get(), path.c_str(), 0);
    auto raw = e ? blob_content(repo_, e->id, path + " in the index") : std::nullopt;
    if (!raw) return;
    try {
      decode_blob(*raw, *digest, std::nullopt, ws_.store().options().max_blob_size, path + " (index)");
      verified_.insert(path);
    } catch (const Error& err) {
      problem(std::string(err.what()) + "; unstage it: git rm --cached " + path);
    }
  }

  void stage(const git_index_entry& entry) {
    for (git_index* index : {index_.get(), real_index_.get()})
      if (index) check_git(git_index_add(index, &entry), std::string("cannot stage ") + entry.path);
    dirty_ = true;
  }

  void problem(const std::string& line) { report_.problems.push_back(line); }

  void check_conversation(const std::string& path) {
    ++report_.conversations;
    const git_index_entry* e = git_index_get_bypath(index_.get(), path.c_str(), 0);
    auto staged = blob_content(repo_, e->id, path + " in the index");
    if (!staged) {
      problem("the staged " + path + " is missing from git's objects");
      return;
    }
    // 1. Inline payloads left by a missing filter: clean the staged version.
    std::string cleaned;
    CleanOptions options;
    options.min_size = ws_.settings().min_size;
    options.path = path;
    const auto result = clean(*staged, ws_.store(), options,
                              [&](std::string_view s) { cleaned.append(s); });
    if (result.replaced > 0) {
      git_oid id;
      check_git(git_blob_create_from_buffer(&id, repo_, cleaned.data(), cleaned.size()),
                "cannot store the cleaned " + path);
      git_index_entry updated = *e;  // same stat data: the work tree file is unchanged
      const std::string entry_path = path;
      updated.path = entry_path.c_str();
      updated.id = id;
      stage(updated);
      ++report_.restaged;
    }
    // 2–4. Every reference, wherever it stands, must have its blob staged.
    std::vector<FoundReference> found;
    scan_events(cleaned, [&](const JsonTree& event) { find_references(event, found); });
    std::set<Digest> seen;
    for (const auto& f : found)
      if (seen.insert(f.ref.digest).second) check_blob(path, f.ref);
  }

  void check_blob(const std::string& conversation, const Reference& ref) {
    const std::string hex = ref.digest.hex();
    const std::string path = std::string(kBlobs) + blob_relative_path(ref.digest);
    const fs::path file = top_ / path;
    const std::string fix = "; restore the blob file (git checkout <commit> -- " + path +
                            ") or add the conversation again so clean rewrites it";
    struct stat st {};
    const bool on_disk = ::lstat(file.c_str(), &st) == 0;
    if (on_disk && !S_ISREG(st.st_mode)) {
      problem("blob " + hex + " referenced by " + conversation + " is not a regular file: " + path);
      return;
    }
    if (const git_index_entry* e = git_index_get_bypath(index_.get(), path.c_str(), 0)) {
      if (on_disk && !stat_matches(*e, st)) {
        git_oid disk;
        check_git(git_odb_hashfile(&disk, file.c_str(), GIT_OBJECT_BLOB), "cannot hash " + path);
        if (!git_oid_equal(&disk, &e->id)) {
          problem("blob " + hex + " referenced by " + conversation +
                  " is tracked but modified in the work tree (" + path +
                  "); a blob never changes: git checkout -- " + path);
          return;
        }
      }
      // Already staged: either committed before, or new and checked by
      // verify_added_blob; only the size its reference declares is left.
      if (verified_.count(path)) {
        auto raw = blob_content(repo_, e->id, path + " in the index");
        if (raw) verify(conversation, ref, *raw, path + " (index)", fix);
      }
      return;
    }
    if (!on_disk) {
      problem("blob " + hex + " referenced by " + conversation + " is missing: " + path + fix);
      return;
    }
    std::string raw;
    try {
      raw = read_file(file, ws_.store().options().max_blob_size * 2 + 1024);
    } catch (const Error& err) {
      problem(std::string(err.what()));
      return;
    }
    if (!verify(conversation, ref, raw, path, fix)) return;
    git_oid id;
    check_git(git_blob_create_from_buffer(&id, repo_, raw.data(), raw.size()), "cannot store " + path);
    stage(entry_for(path, st, id));
    ++report_.blobs_staged;
  }

  bool verify(const std::string& conversation, const Reference& ref, std::string_view raw,
              const std::string& what, const std::string& fix) {
    try {
      decode_blob(raw, ref.digest, ref.size, ws_.store().options().max_blob_size, what);
      return true;
    } catch (const Error& err) {
      problem(std::string(err.what()) + " (referenced by " + conversation + ")" + fix);
      return false;
    }
  }

  Workspace ws_;
  git_repository* repo_ = nullptr;
  fs::path top_;
  IndexPtr index_;
  IndexPtr real_index_;
  TreePtr head_;
  bool dirty_ = false;
  std::set<std::string> verified_;  // blob files new in this commit, already checked
  PreCommitReport report_;
};

}  // namespace

PreCommitReport run_pre_commit_hook(const fs::path& cwd) { return Hook(cwd).run(); }

}  // namespace jpblob
