// GitRepo's opening (core/git/git_repo.hpp): libgit2's set-up, the
// repository and the index git would use as the environment names them,
// and config with `git -c` on top. Its reads of the index are in
// git_repo_index.cpp, of commits' trees in git_repo_trees.cpp, of the
// object database in git_repo_objects.cpp.
#include "core/git/git_repo.hpp"

#include <git2.h>
#include <git2/sys/repository.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <strings.h>

#include "core/base/descriptors.hpp"
#include "core/base/error.hpp"
#include "core/base/fs.hpp"

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
      // libgit2 keeps every pack it has read from open (no limit by
      // default); git closes one once its packs would pass the descriptor
      // limit. Its share here (core/base/descriptors): a quarter of what
      // the limit spares.
      git_libgit2_opts(GIT_OPT_SET_MWINDOW_FILE_LIMIT, std::max<std::size_t>(1, spare_descriptors() / 4));
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
  // libgit2 refuses the extension by name ("unsupported extension name
  // extensions.objectformat"): its message is the one way to tell.
  if (const git_error* e = rc < 0 ? git_error_last() : nullptr;
      e && e->message && std::string_view(e->message).find("objectformat") != std::string_view::npos)
    throw UnsupportedRepository("the repository at " + dir.string() +
                                " names its objects by SHA-256 (extensions.objectFormat), which git-jpblob cannot "
                                "read yet: libgit2 1.5 reads SHA-1 repositories only");
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
fs::path GitRepo::commondir() const { return git_repository_commondir(repo_.get()); }

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

std::string libgit2_version() {
  int major = 0, minor = 0, revision = 0;
  git_libgit2_version(&major, &minor, &revision);
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(revision);
}

}  // namespace jpblob
