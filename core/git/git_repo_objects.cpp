// GitRepo's questions to git's object database alone (core/git/git_repo.hpp):
// hashing, sizes, presence and writing blobs, with no index or work tree.
#include <git2.h>

#include "core/git/git_repo.hpp"

namespace jpblob {

std::string GitRepo::hash_blob(std::string_view content) const {
  git_oid id;
  check_git(git_odb_hash(&id, content.data(), content.size(), GIT_OBJECT_BLOB), "cannot hash a blob");
  return git_oid_tostr_s(&id);
}

std::optional<std::uint64_t> GitRepo::object_size(const std::string& hex) const {
  git_oid oid;
  if (git_oid_fromstr(&oid, hex.c_str()) < 0) {
    git_error_clear();
    return std::nullopt;
  }
  git_odb* odb = nullptr;
  check_git(git_repository_odb(&odb, repo_.get()), "cannot open git's objects");
  std::size_t size = 0;
  git_object_t type{};
  const int rc = git_odb_read_header(&size, &type, odb, &oid);
  git_odb_free(odb);
  if (rc != 0) {
    git_error_clear();
    return std::nullopt;
  }
  return size;
}

bool GitRepo::has_object(const std::string& hex) const {
  git_oid id;
  if (git_oid_fromstr(&id, hex.c_str()) < 0) {
    git_error_clear();
    return false;
  }
  git_odb* odb = nullptr;
  check_git(git_repository_odb(&odb, repo_.get()), "cannot open git's objects");
  // No refresh on a miss: libgit2 would list objects/pack again for every
  // absent object (gc asks about thousands), and a false "absent" only
  // makes the callers more careful.
  const bool exists = git_odb_exists_ext(odb, &id, GIT_ODB_LOOKUP_NO_REFRESH) == 1;
  git_odb_free(odb);
  return exists;
}

std::string GitRepo::write_blob(std::string_view content) const {
  git_oid id;
  check_git(git_blob_create_from_buffer(&id, repo_.get(), content.data(), content.size()),
            "cannot write a blob to git's objects");
  return git_oid_tostr_s(&id);
}

}  // namespace jpblob
