// GitRepo's reads and one edit of the index (core/git/git_repo.hpp):
// through libgit2, or through git where libgit2 1.5 cannot read the index.
#include "core/git/git_repo.hpp"

#include <git2.h>

#include <cstdio>

#include "core/base/error.hpp"
#include "core/git/git_cli.hpp"

namespace jpblob {

namespace fs = std::filesystem;

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
  return read_blob(&entry->id, p + " in the index");
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

}  // namespace jpblob
