// GitRepo's questions to git's object database alone (core/git/git_repo.hpp):
// hashing, sizes, presence and writing blobs, with no index or work tree.
#include <fcntl.h>
#include <git2.h>

#include <atomic>
#include <charconv>

#include "core/base/fs.hpp"
#include "core/format/gzip.hpp"
#include "core/git/git_repo.hpp"
#include "core/git/object_hash.hpp"

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

namespace {
std::atomic<int> id_checks{0};
}  // namespace

ObjectIdChecks::ObjectIdChecks() {
  if (id_checks++ == 0) git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 1);
}

ObjectIdChecks::~ObjectIdChecks() {
  if (--id_checks == 0) git_libgit2_opts(GIT_OPT_ENABLE_STRICT_HASH_VERIFICATION, 0);
}

std::optional<std::string> read_loose_blob(const std::filesystem::path& objects, std::string_view hex) {
  if (hex.size() < 4) return std::nullopt;
  const std::string file = (objects / std::string(hex.substr(0, 2)) / std::string(hex.substr(2))).string();
  // Followed where a link stands for the file, as git and libgit2 follow it.
  const Fd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) return std::nullopt;  // packed, or not here: libgit2's
  const auto corrupt = [&](const std::string& why) {
    return Error("cannot read object " + std::string(hex) + " from git: its file " + file + " is corrupt (" + why +
                 "); `git fsck` lists every such object");
  };
  const std::string z = read_all(fd.get(), file);
  // "<type> <decimal size>" NUL, then the content.
  const auto head = zlib_peek(z, 32);
  if (!head) throw corrupt("it does not inflate");
  const std::size_t space = head->find(' '), nul = head->find('\0');
  if (space == std::string::npos || nul == std::string::npos || space > nul) throw corrupt("no object header");
  const std::string_view type = std::string_view(*head).substr(0, space);
  if (type == "tree" || type == "commit" || type == "tag") return std::nullopt;  // libgit2 says what it is
  if (type != "blob") throw corrupt("an unknown object type");
  std::uint64_t size = 0;
  const auto [end, ec] = std::from_chars(head->data() + space + 1, head->data() + nul, size);
  // Decimal digits, with no leading zero (as git reads a header).
  const bool leading_zero = nul > space + 2 && (*head)[space + 1] == '0';
  if (ec != std::errc() || end != head->data() + nul || nul == space + 1 || leading_zero)
    throw corrupt("a bad size in its header");
  // What deflate can make of the bytes at most (1032:1): a header is not
  // a promise, and the buffer is allocated from it.
  if (size > std::uint64_t{z.size()} * 1032 + 64) throw corrupt("its header declares more than it can hold");
  auto whole = zlib_decompress_exact(z, nul + 1 + static_cast<std::size_t>(size));
  if (!whole) throw corrupt("it does not inflate to the " + std::to_string(size) + " bytes its header declares");
  if (id_checks.load() > 0) {
    ObjectHasher hasher(hex.size() == 64 ? "sha256" : "sha1");
    hasher.update(*whole);
    if (const std::string named = hex_object_id(hasher.finish_raw()); named != hex)
      throw corrupt("it holds other bytes than its name says: they hash to " + named);
  }
  whole->erase(0, nul + 1);
  return whole;
}

}  // namespace jpblob
