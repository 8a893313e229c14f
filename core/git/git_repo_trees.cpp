// GitRepo's reads of committed trees (core/git/git_repo.hpp): a path in
// HEAD or in any commit, every blob below a few folders across many
// commits, and whether a ref exists. The trees on the way are kept
// (TreeCache), as a checkout asks for thousands of paths in one commit.
#include "core/git/git_repo.hpp"

#include <git2.h>

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "core/base/error.hpp"

namespace jpblob {

struct GitRepo::TreeCache {
  std::unordered_map<std::string, git_tree*> trees;  // null: no such folder
  void clear() {
    for (auto& [key, tree] : trees) git_tree_free(tree);
    trees.clear();
  }
  ~TreeCache() { clear(); }
};

// Here, where TreeCache is whole; moved copies share it.
GitRepo::GitRepo(git_repository* repo) : repo_(repo), trees_(std::make_shared<TreeCache>()) {}

namespace {

bool is_object_id(const std::string& rev) {
  return (rev.size() == GIT_OID_HEXSZ || rev.size() == 64) &&
         rev.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// A tree or commit that is not there (an unborn branch, a partial clone's
// missing object, a name that names nothing) is absent; one that is there
// and cannot be read (a corrupt loose object: install_loose_reader's
// error, which names its file; a hash that does not match) is an error,
// not "absent": the callers would call every blob below it missing.
void absent_unless_corrupt(int rc, const std::string& what) {
  if (rc == GIT_ERROR || rc == GIT_EMISMATCH) check_git(rc, what);
  git_error_clear();
}
}  // namespace

const git_tree* GitRepo::tree_at(const std::string& rev, std::string_view folder) const {
  std::string key = rev + ":";
  key += folder;
  if (auto it = trees_->trees.find(key); it != trees_->trees.end()) return it->second;
  git_tree* tree = nullptr;
  if (folder.empty()) {
    git_object* object = nullptr;
    const int rc = git_revparse_single(&object, repo_.get(), (rev + "^{tree}").c_str());
    if (rc < 0) absent_unless_corrupt(rc, "cannot read " + rev);
    else tree = reinterpret_cast<git_tree*>(object);
  } else {
    const std::size_t slash = folder.rfind('/');
    const std::string_view parent = slash == std::string_view::npos ? std::string_view() : folder.substr(0, slash);
    const std::string name(slash == std::string_view::npos ? folder : folder.substr(slash + 1));
    if (const git_tree* up = tree_at(rev, parent)) {
      const git_tree_entry* entry = git_tree_entry_byname(up, name.c_str());
      if (entry && git_tree_entry_type(entry) == GIT_OBJECT_TREE) {
        if (const int rc = git_tree_lookup(&tree, repo_.get(), git_tree_entry_id(entry)); rc < 0) {
          tree = nullptr;
          absent_unless_corrupt(rc, "cannot read " + std::string(folder) + " in " + rev);
        }
      }
    }
  }
  // A long rebase checks out many commits: past this many trees, start over.
  if (trees_->trees.size() >= 200000) trees_->clear();
  trees_->trees.emplace(std::move(key), tree);
  return tree;
}

std::optional<std::string> GitRepo::blob_id_at(const std::string& rev, std::string_view path) const {
  if (!is_object_id(rev)) {
    // A name that can move ("HEAD"): its tree now, whose trees are kept
    // under the tree's own id.
    git_object* tree = nullptr;
    if (const int rc = git_revparse_single(&tree, repo_.get(), (rev + "^{tree}").c_str()); rc < 0) {
      absent_unless_corrupt(rc, "cannot read " + rev);
      return std::nullopt;
    }
    const std::string id = git_oid_tostr_s(git_object_id(tree));
    git_object_free(tree);
    return blob_id_at(id, path);
  }
  const std::size_t slash = path.rfind('/');
  const git_tree* folder = tree_at(rev, slash == std::string_view::npos ? std::string_view() : path.substr(0, slash));
  if (!folder) return std::nullopt;
  const std::string name(slash == std::string_view::npos ? path : path.substr(slash + 1));
  const git_tree_entry* entry = git_tree_entry_byname(folder, name.c_str());
  if (!entry || git_tree_entry_type(entry) != GIT_OBJECT_BLOB) return std::nullopt;
  return std::string(git_oid_tostr_s(git_tree_entry_id(entry)));
}

std::optional<std::unordered_set<std::string>> GitRepo::changed_blobs(const std::string& parent,
                                                                      const std::string& commit,
                                                                      const std::vector<std::string>& roots) const {
  const git_tree* before = tree_at(parent, "");
  const git_tree* after = tree_at(commit, "");
  if (!before || !after) return std::nullopt;
  std::vector<char*> paths;
  for (const std::string& root : roots) paths.push_back(const_cast<char*>(root.c_str()));
  // The init function, not GIT_DIFF_OPTIONS_INIT: clang's
  // -Wmissing-field-initializers refuses the macro's short initializer.
  git_diff_options options;
  if (git_diff_options_init(&options, GIT_DIFF_OPTIONS_VERSION) < 0) return std::nullopt;
  options.pathspec = {paths.data(), paths.size()};
  options.flags = GIT_DIFF_DISABLE_PATHSPEC_MATCH;  // folders by name, never as patterns
  git_diff* diff = nullptr;
  if (const int rc = git_diff_tree_to_tree(&diff, repo_.get(), const_cast<git_tree*>(before),
                                           const_cast<git_tree*>(after), &options);
      rc < 0) {
    absent_unless_corrupt(rc, "cannot compare " + parent + " with " + commit);
    return std::nullopt;
  }
  const std::unique_ptr<git_diff, decltype(&git_diff_free)> owned(diff, git_diff_free);
  std::unordered_set<std::string> out;
  for (std::size_t i = 0; i < git_diff_num_deltas(diff); ++i) {
    const git_diff_delta* delta = git_diff_get_delta(diff, i);
    if (delta->status != GIT_DELTA_DELETED) out.insert(delta->new_file.path);
  }
  return out;
}

std::optional<std::vector<TreeEntry>> GitRepo::blobs_below(const std::vector<std::string>& commits,
                                                            const std::vector<std::string>& roots,
                                                            const std::vector<std::string>& skip) const {
  std::vector<TreeEntry> out;
  std::unordered_set<std::string> walked;  // path + '\0' + tree id
  using Owned = std::unique_ptr<git_tree, decltype(&git_tree_free)>;
  // Depth first, with the trees still to walk on a stack of their own: no
  // recursion as deep as a hostile tree.
  struct Pending {
    std::string path;
    git_oid id;
  };
  std::vector<Pending> stack;
  auto visit = [&](const std::string& path, const git_oid& id) {
    if (std::find(skip.begin(), skip.end(), path) != skip.end()) return;
    std::string key = path;
    key.push_back('\0');
    key += git_oid_tostr_s(&id);
    if (walked.insert(std::move(key)).second) stack.push_back({path, id});
  };
  for (const std::string& commit : commits) {
    git_oid oid;
    git_commit* c = nullptr;
    if (git_oid_fromstr(&oid, commit.c_str()) < 0 || git_commit_lookup(&c, repo_.get(), &oid) < 0) {
      git_error_clear();
      return std::nullopt;
    }
    git_tree* top = nullptr;
    const int rc = git_commit_tree(&top, c);
    git_commit_free(c);
    if (rc < 0) {
      git_error_clear();
      return std::nullopt;
    }
    const Owned root_tree(top, git_tree_free);
    for (const std::string& root : roots) {
      git_tree_entry* entry = nullptr;
      if (git_tree_entry_bypath(&entry, root_tree.get(), root.c_str()) < 0) {
        git_error_clear();
        continue;  // no such folder in this commit
      }
      if (git_tree_entry_type(entry) == GIT_OBJECT_TREE) visit(root, *git_tree_entry_id(entry));
      git_tree_entry_free(entry);
    }
    while (!stack.empty()) {
      const Pending folder = std::move(stack.back());
      stack.pop_back();
      git_tree* raw = nullptr;
      if (git_tree_lookup(&raw, repo_.get(), &folder.id) < 0) {
        git_error_clear();
        return std::nullopt;
      }
      const Owned tree(raw, git_tree_free);
      const std::size_t n = git_tree_entrycount(tree.get());
      for (std::size_t i = 0; i < n; ++i) {
        const git_tree_entry* e = git_tree_entry_byindex(tree.get(), i);
        const std::string path = folder.path + "/" + git_tree_entry_name(e);
        if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
          visit(path, *git_tree_entry_id(e));
        } else if (git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
          char mode[8];
          std::snprintf(mode, sizeof mode, "%06o", static_cast<unsigned>(git_tree_entry_filemode(e)));
          out.push_back({mode, "blob", git_oid_tostr_s(git_tree_entry_id(e)), path});
        }
      }
    }
  }
  return out;
}

std::optional<std::string> GitRepo::read_head(std::string_view path) const {
  git_object* tree = nullptr;
  int rc = git_revparse_single(&tree, repo_.get(), "HEAD^{tree}");
  if (rc == GIT_ENOTFOUND || rc == GIT_EUNBORNBRANCH) return std::nullopt;
  check_git(rc, "cannot read HEAD");
  git_tree_entry* entry = nullptr;
  const std::string p(path);
  rc = git_tree_entry_bypath(&entry, reinterpret_cast<git_tree*>(tree), p.c_str());
  git_object_free(tree);
  if (rc == GIT_ENOTFOUND) return std::nullopt;
  check_git(rc, "cannot look up " + p + " in HEAD");
  git_oid oid = *git_tree_entry_id(entry);
  const bool is_blob = git_tree_entry_type(entry) == GIT_OBJECT_BLOB;
  git_tree_entry_free(entry);
  if (!is_blob) return std::nullopt;
  return read_blob(&oid, p + " in HEAD");
}

bool GitRepo::has_ref(const std::string& name) const {
  git_reference* ref = nullptr;
  if (git_reference_lookup(&ref, repo_.get(), name.c_str()) < 0) {
    git_error_clear();
    return false;
  }
  git_reference_free(ref);
  return true;
}

}  // namespace jpblob
