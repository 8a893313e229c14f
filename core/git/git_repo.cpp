#include "core/git/git_repo.hpp"

#include <git2.h>
#include <git2/sys/repository.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <strings.h>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/git/git_cli.hpp"

namespace jpblob {

namespace fs = std::filesystem;

void check_git(int rc, const std::string& what) {
  if (rc >= 0) return;
  const git_error* e = git_error_last();
  throw Error(what + ": " + (e && e->message ? e->message : "libgit2 error " + std::to_string(rc)));
}

void ensure_libgit2() {
  // One guard pairs git_libgit2_init with git_libgit2_shutdown; a function
  // static makes its construction thread-safe.
  struct Guard {
    Guard() {
      git_libgit2_init();
      // Extensions git writes that only matter to writers of refs or
      // objects; git-jpblob only reads. libgit2 reads worktreeconfig once
      // it is declared.
      const char* extensions[] = {"worktreeconfig", "partialclone", "preciousobjects"};
      git_libgit2_opts(GIT_OPT_SET_EXTENSIONS, extensions, std::size(extensions));
      // libgit2 caches no tree over 4 KiB by default, and .jp/blobs and each
      // of its aa/ folders hold 256 entries (about 8 KiB): every blob's
      // path lookup inflated both again. A lean clone reads every blob
      // through them.
      git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, GIT_OBJECT_TREE, static_cast<std::size_t>(1) << 20);
      // Packs first, then git-jpblob's reader of loose objects
      // (install_loose_reader, priority 2), then libgit2's own loose reader
      // (1), which never returns from a truncated file: git reads packs
      // first too, so a corrupt loose copy of a packed object (an empty
      // file a crash left) does not stand in the packed one's way.
      git_libgit2_opts(GIT_OPT_SET_ODB_PACKED_PRIORITY, 3);
      // libgit2 hashes every object it reads again (a tenth of a large
      // commit's hook), where git itself leaves that to fsck. Nothing here
      // trusts an object for its id: each blob is checked against its
      // SHA-256 name, and each document is parsed.
      git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
    }
    ~Guard() { git_libgit2_shutdown(); }
  };
  static Guard guard;
}

std::uint64_t parse_config_size(const std::string& key, const std::string& value) {
  std::int64_t v = 0;
  if (git_config_parse_int64(&v, value.c_str()) < 0 || v < 0) {
    git_error_clear();
    throw Error("bad value for git config " + key + ": '" + value + "' is not a size");
  }
  return static_cast<std::uint64_t>(v);
}

bool parse_config_bool(const std::string& key, const std::string& value) {
  int v = 0;
  if (git_config_parse_bool(&v, value.c_str()) < 0) {
    git_error_clear();
    throw Error("bad value for git config " + key + ": '" + value + "' is not a boolean");
  }
  return v != 0;
}

void RepoDeleter::operator()(git_repository* r) const { git_repository_free(r); }
void IndexDeleter::operator()(git_index* i) const { git_index_free(i); }
void ConfigDeleter::operator()(git_config* c) const { git_config_free(c); }

namespace {

const char* env(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : nullptr;
}

// Splits git's GIT_CONFIG_PARAMETERS: shell-quoted words, either
// 'key=value' (old form) or 'key'='value' (git ≥ 2.31).
void parse_config_parameters(std::string_view s,
                             std::vector<std::pair<std::string, std::string>>& out) {
  std::size_t i = 0;
  auto quoted = [&](std::string& word) -> bool {
    if (i >= s.size() || s[i] != '\'') return false;
    ++i;
    for (;;) {
      auto end = s.find('\'', i);
      if (end == std::string_view::npos) return false;
      word.append(s.substr(i, end - i));
      i = end + 1;
      // git's sq_quote writes ' as '\'' and ! as '\!': a backslash-escaped
      // character between two quoted runs belongs to the word.
      if (i + 2 < s.size() && s[i] == '\\' && s[i + 2] == '\'') {
        word.push_back(s[i + 1]);
        i += 3;
        continue;
      }
      return true;
    }
  };
  while (i < s.size()) {
    while (i < s.size() && s[i] == ' ') ++i;
    if (i >= s.size()) break;
    std::string first;
    if (!quoted(first)) return;  // malformed: git would refuse it too
    if (i < s.size() && s[i] == '=') {
      ++i;
      // `git -c key` (no value: true) is written 'key'= with nothing after.
      if (i >= s.size() || s[i] == ' ') {
        out.emplace_back(first, "true");
        continue;
      }
      std::string value;
      if (!quoted(value)) return;
      out.emplace_back(first, value);
    } else {
      auto eq = first.find('=');
      if (eq == std::string::npos) out.emplace_back(first, "true");  // `-c key` means true
      else out.emplace_back(first.substr(0, eq), first.substr(eq + 1));
    }
  }
}

struct OdbDeleter {
  void operator()(git_odb* o) const { git_odb_free(o); }
};

// GIT_ALTERNATE_OBJECT_DIRECTORIES: folders separated by ':', each quoted
// the C way when it holds a ':' or a '"' (git's quote_c_style).
std::vector<std::string> split_path_list(std::string_view list) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i <= list.size()) {
    std::string dir;
    if (i < list.size() && list[i] == '"') {
      for (++i; i < list.size() && list[i] != '"'; ++i) {
        if (list[i] == '\\' && i + 1 < list.size()) ++i;
        dir += list[i];
      }
      i = list.find(':', i);
    } else {
      const std::size_t end = list.find(':', i);
      dir = std::string(list.substr(i, end == std::string_view::npos ? std::string_view::npos : end - i));
      i = end;
    }
    out.push_back(std::move(dir));
    if (i == std::string_view::npos) break;
    ++i;
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> command_line_config() {
  std::vector<std::pair<std::string, std::string>> out;
  if (const char* p = env("GIT_CONFIG_PARAMETERS")) parse_config_parameters(p, out);
  if (const char* count = env("GIT_CONFIG_COUNT")) {
    const long n = std::strtol(count, nullptr, 10);
    for (long k = 0; k < n; ++k) {
      const char* key = std::getenv(("GIT_CONFIG_KEY_" + std::to_string(k)).c_str());
      const char* value = std::getenv(("GIT_CONFIG_VALUE_" + std::to_string(k)).c_str());
      if (key && value) out.emplace_back(key, value);
    }
  }
  return out;
}

std::optional<std::string> command_line_config_value(const std::string& key) {
  std::optional<std::string> value;
  for (const auto& [k, v] : command_line_config())
    if (strcasecmp(k.c_str(), key.c_str()) == 0) value = v;
  return value;
}

std::optional<GitRepo> GitRepo::open(const fs::path& cwd) {
  ensure_libgit2();
  git_repository* raw = nullptr;
  const char* git_dir = env("GIT_DIR");
  const fs::path dir = git_dir ? fs::absolute(cwd / git_dir) : cwd;
  int rc = git_repository_open_ext(&raw, dir.c_str(), git_dir ? GIT_REPOSITORY_OPEN_NO_SEARCH : 0,
                                   env("GIT_CEILING_DIRECTORIES"));
  if (rc == GIT_ENOTFOUND && !git_dir) return std::nullopt;
  check_git(rc, "cannot open the git repository at " + dir.string());
  GitRepo repo(raw);
  repo.cwd_ = cwd;
  if (const char* wt = env("GIT_WORK_TREE")) {
    const fs::path work_tree = fs::absolute(cwd / wt);
    check_git(git_repository_set_workdir(raw, work_tree.c_str(), 0),
              "cannot use work tree " + work_tree.string());
  } else if (git_dir && !repo.config("core.worktree") && !git_repository_is_bare(raw)) {
    // git: with GIT_DIR set and no work tree named, the current folder is
    // the top of the work tree, unless the repository is bare (git runs a
    // received push's hooks in a bare repository with GIT_DIR=.).
    check_git(git_repository_set_workdir(raw, cwd.c_str(), 0),
              "cannot use work tree " + cwd.string());
  }
  repo.add_worktree_config();
  repo.use_environment_objects();
  install_loose_reader(raw, repo.object_dirs_);
  if (const char* wd = git_repository_workdir(raw)) repo.workdir_ = fs::path(wd).lexically_normal();
  if (repo.workdir_ && repo.workdir_->filename().empty())
    repo.workdir_ = repo.workdir_->parent_path();
  return repo;
}

void GitRepo::add_worktree_config() {
  // libgit2 1.5 opens repositories with extensions.worktreeConfig once the
  // extension is declared, but never reads config.worktree. Add it above the
  // local file, where git ranks it.
  git_config* cfg = nullptr;
  check_git(git_repository_config(&cfg, repo_.get()), "cannot read git config");
  std::unique_ptr<git_config, ConfigDeleter> owned(cfg);
  int enabled = 0;
  if (git_config_get_bool(&enabled, cfg, "extensions.worktreeConfig") < 0 || !enabled) {
    git_error_clear();
    return;
  }
  const fs::path file = gitdir() / "config.worktree";
  if (!fs::exists(file)) return;
  check_git(git_config_add_file_ondisk(cfg, file.c_str(), GIT_CONFIG_LEVEL_APP, repo_.get(), 0),
            "cannot read " + file.string());
}

void GitRepo::use_environment_objects() {
  // libgit2 reads these only with GIT_REPOSITORY_OPEN_FROM_ENV, which would
  // also change how GIT_DIR and the work tree are found. git sets them for
  // the hooks of a push it receives: the pushed objects sit in a quarantine
  // folder (GIT_OBJECT_DIRECTORY) until the hooks accept them, with the
  // repository's own objects as an alternate.
  const char* object_dir = env("GIT_OBJECT_DIRECTORY");
  const char* alternates = env("GIT_ALTERNATE_OBJECT_DIRECTORIES");
  object_dirs_ = {object_dir ? fs::absolute(cwd_ / object_dir)
                             : fs::path(git_repository_commondir(repo_.get())) / "objects"};
  if (alternates)
    for (const std::string& dir : split_path_list(alternates))
      if (!dir.empty()) object_dirs_.push_back(fs::absolute(cwd_ / dir));
  // Each folder's info/alternates (at most 64 folders, each once): one path a
  // line, relative to that folder, '#' a comment. A quoted line (a path
  // git had to escape) is left to libgit2.
  for (std::size_t i = 0; i < object_dirs_.size() && object_dirs_.size() < 64; ++i) {
    std::error_code ec;
    const fs::path list = object_dirs_[i] / "info" / "alternates";
    if (!fs::is_regular_file(list, ec)) continue;
    std::string text;
    try {
      text = read_file(list, 1 << 20);
    } catch (const Error&) {
      continue;  // libgit2 reads it, or says why it cannot
    }
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
      if (line.empty() || line[0] == '#' || line[0] == '"') continue;
      const fs::path dir = fs::path(line).is_absolute() ? fs::path(line) : object_dirs_[i] / line;
      if (std::find(object_dirs_.begin(), object_dirs_.end(), dir.lexically_normal()) == object_dirs_.end())
        object_dirs_.push_back(dir.lexically_normal());
    }
  }
  if (!object_dir && !alternates) return;
  git_odb* odb = nullptr;
  if (object_dir) {
    const fs::path dir = fs::absolute(cwd_ / object_dir);
    check_git(git_odb_open(&odb, dir.c_str()), "cannot open git's objects at " + dir.string());
  } else {
    check_git(git_repository_odb(&odb, repo_.get()), "cannot open git's objects");
  }
  std::unique_ptr<git_odb, OdbDeleter> owned(odb);
  if (alternates)
    for (const std::string& dir : split_path_list(alternates)) {
      if (dir.empty()) continue;
      const fs::path path = fs::absolute(cwd_ / dir);
      check_git(git_odb_add_disk_alternate(odb, path.c_str()), "cannot read git's objects at " + path.string());
    }
  if (object_dir) git_repository_set_odb(repo_.get(), odb);
}

fs::path GitRepo::gitdir() const { return git_repository_path(repo_.get()); }

std::unique_ptr<git_index, IndexDeleter> GitRepo::index() const {
  git_index* raw = nullptr;
  if (const char* file = env("GIT_INDEX_FILE")) {
    const fs::path path = fs::absolute(cwd_ / file);
    check_git(git_index_open(&raw, path.c_str()), "cannot open index " + path.string());
  } else {
    check_git(git_repository_index(&raw, repo_.get()), "cannot open the index");
    check_git(git_index_read(raw, 0), "cannot read the index");
  }
  return std::unique_ptr<git_index, IndexDeleter>(raw);
}

namespace {
std::optional<std::string> read_blob(git_repository* repo, const std::vector<fs::path>& object_dirs,
                                     const git_oid* oid, const std::string& what) {
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, oid);
  // Loose first, for speed (most staged conversations are loose); a
  // corrupt loose file yields to a packed copy, as git reads packs first.
  std::optional<Error> corrupt;
  for (const fs::path& dir : object_dirs) {
    try {
      if (auto loose = read_loose_blob(dir, hex)) return loose;
    } catch (const Error& e) {
      corrupt = e;
      break;
    }
  }
  git_blob* blob = nullptr;
  int rc = git_blob_lookup(&blob, repo, oid);
  if (rc < 0 && corrupt) {
    git_error_clear();
    throw *corrupt;
  }
  if (rc == GIT_ENOTFOUND) return std::nullopt;  // e.g. a partial clone
  check_git(rc, "cannot read " + what + " from git");
  std::string out(static_cast<const char*>(git_blob_rawcontent(blob)),
                  static_cast<std::size_t>(git_blob_rawsize(blob)));
  git_blob_free(blob);
  return out;
}
}  // namespace

std::optional<std::string> GitRepo::read_object(const std::string& hex) const {
  git_oid id;
  check_git(git_oid_fromstr(&id, hex.c_str()), "bad object id " + hex);
  return read_blob(repo_.get(), object_dirs_, &id, "object " + hex);
}

// git's own reading of the index, where libgit2 1.5 cannot read it: a
// split index (the `link` extension, core.splitIndex), an entry whose
// path is 4,096 bytes or more. git reads any index it wrote.
GitCli GitRepo::index_reader() const {
  const char* workdir = git_repository_workdir(repo_.get());
  return GitCli(workdir ? fs::path(workdir) : cwd_);
}

std::optional<std::string> GitRepo::read_staged(std::string_view path) const {
  std::unique_ptr<git_index, IndexDeleter> idx;
  try {
    idx = index();
  } catch (const Error&) {
    const std::string p(path);
    const auto ids = index_reader().index_ids({p});
    const auto id = ids.find(p);
    if (id == ids.end()) return std::nullopt;
    return read_object(id->second);
  }
  const std::string p(path);
  const git_index_entry* entry = git_index_get_bypath(idx.get(), p.c_str(), 0);
  if (!entry) return std::nullopt;
  return read_blob(repo_.get(), object_dirs_, &entry->id, p + " in the index");
}

std::vector<IndexEntry> GitRepo::index_entries(std::string_view folder, Entries which) const {
  std::unique_ptr<git_index, IndexDeleter> idx;
  try {
    idx = index();
  } catch (const Error&) {
    std::vector<IndexEntry> out;
    for (IndexEntry& e : index_reader().index_entries({literal_pathspec(folder)}))
      if (e.stage == 0 && (which == Entries::All || e.skip_worktree)) out.push_back(std::move(e));
    return out;
  }
  std::vector<IndexEntry> out;
  const std::string prefix = std::string(folder) + "/";
  const std::size_t n = git_index_entrycount(idx.get());
  for (std::size_t i = 0; i < n; ++i) {
    const git_index_entry* e = git_index_get_byindex(idx.get(), i);
    if (!e || git_index_entry_stage(e) != 0 || !std::string_view(e->path).starts_with(prefix)) continue;
    const bool skip = e->flags_extended & GIT_INDEX_ENTRY_SKIP_WORKTREE;
    if (which != Entries::All && !skip) continue;
    char mode[8];
    std::snprintf(mode, sizeof mode, "%06o", static_cast<unsigned>(e->mode));
    out.push_back({mode, git_oid_tostr_s(&e->id), 0, e->path, skip});
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
  return read_blob(repo_.get(), object_dirs_, &oid, p + " in HEAD");
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

struct GitRepo::TreeCache {
  std::unordered_map<std::string, git_tree*> trees;  // null: no such folder
  void clear() {
    for (auto& [key, tree] : trees) git_tree_free(tree);
    trees.clear();
  }
  ~TreeCache() { clear(); }
};

namespace {

bool is_object_id(const std::string& rev) {
  return (rev.size() == GIT_OID_HEXSZ || rev.size() == 64) &&
         rev.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

GitRepo::GitRepo(git_repository* repo) : repo_(repo), trees_(std::make_shared<TreeCache>()) {}

namespace {
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

std::optional<std::string> GitRepo::config(const std::string& key) const {
  // `git -c` wins over files; the last one given wins among them.
  if (auto from_command_line = command_line_config_value(key)) return from_command_line;
  git_config* cfg = nullptr;
  check_git(git_repository_config_snapshot(&cfg, repo_.get()), "cannot read git config");
  std::unique_ptr<git_config, ConfigDeleter> owned(cfg);
  git_buf buf = GIT_BUF_INIT;
  const int rc = git_config_get_string_buf(&buf, cfg, key.c_str());
  if (rc == GIT_ENOTFOUND) return std::nullopt;
  check_git(rc, "cannot read git config " + key);
  std::string value(buf.ptr, buf.size);
  git_buf_dispose(&buf);
  return value;
}

std::optional<std::string> GitRepo::promisor_remote() const {
  if (auto named = config("extensions.partialclone"); named && !named->empty()) return named;
  git_config* cfg = nullptr;
  check_git(git_repository_config_snapshot(&cfg, repo_.get()), "cannot read git config");
  std::unique_ptr<git_config, ConfigDeleter> owned(cfg);
  git_config_iterator* it = nullptr;
  check_git(git_config_iterator_glob_new(&it, cfg, "^remote\\..*\\.promisor$"), "cannot read git config");
  std::optional<std::string> remote;
  git_config_entry* entry = nullptr;
  while (!remote && git_config_next(&entry, it) == 0) {
    int on = 0;
    if (git_config_parse_bool(&on, entry->value) < 0) {
      git_error_clear();
      continue;
    }
    // remote.<name>.promisor: the name is what lies between the first and
    // the last dot (a name may hold dots itself).
    const std::string key = entry->name;
    if (on) remote = key.substr(7, key.size() - 7 - std::string_view(".promisor").size());
  }
  git_config_iterator_free(it);
  return remote;
}

void GitRepo::set_index_entry_id(const fs::path& index_file, const std::string& path, const std::string& id) const {
  git_oid oid;
  check_git(git_oid_fromstr(&oid, id.c_str()), "bad object id " + id);
  git_index* raw = nullptr;
  if (git_index_open(&raw, index_file.c_str()) < 0) {
    // An index libgit2 1.5 cannot read (a split index): git restages the
    // entry, without its stat data, so git checks the file by content the
    // next time it looks (the same bytes: clean's output).
    git_error_clear();
    const GitCli git = index_reader().with_index(index_file);
    for (IndexEntry& e : git.index_entries({literal_pathspec(path)}))
      if (e.stage == 0 && e.path == path) {
        e.id = id;
        git.set_index_ids({e});
      }
    return;
  }
  std::unique_ptr<git_index, IndexDeleter> index(raw);
  const git_index_entry* e = git_index_get_bypath(raw, path.c_str(), 0);
  if (!e) return;
  git_index_entry updated = *e;
  updated.id = oid;
  check_git(git_index_add(raw, &updated), "cannot restage " + path);
  check_git(git_index_write(raw), "cannot write " + index_file.string());
}

fs::path GitRepo::commondir() const { return git_repository_commondir(repo_.get()); }

std::string libgit2_version() {
  int major = 0, minor = 0, revision = 0;
  git_libgit2_version(&major, &minor, &revision);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(revision);
}

}  // namespace jpblob
