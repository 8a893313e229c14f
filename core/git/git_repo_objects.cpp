// GitRepo's questions to git's object database alone (core/git/git_repo.hpp):
// reading, hashing, sizes, presence and writing blobs, with no index or
// work tree; and the reader of loose objects it installs in libgit2.
#include <fcntl.h>
#include <sys/stat.h>
#include <git2.h>
#include <git2/sys/odb_backend.h>

#include <atomic>
#include <charconv>
#include <cstring>

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

std::optional<std::string> GitRepo::read_blob(const git_oid* oid, const std::string& what) const {
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, oid);
  // Loose first, for speed (most staged conversations are loose); a
  // corrupt loose file yields to a packed copy, as git reads packs first.
  std::optional<Error> corrupt;
  for (const std::filesystem::path& dir : object_dirs_) {
    try {
      if (auto loose = read_loose_blob(dir, hex)) return loose;
    } catch (const Error& e) {
      corrupt = e;
      break;
    }
  }
  git_blob* blob = nullptr;
  int rc = git_blob_lookup(&blob, repo_.get(), oid);
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

std::optional<std::string> GitRepo::read_object(const std::string& hex) const {
  git_oid id;
  check_git(git_oid_fromstr(&id, hex.c_str()), "bad object id " + hex);
  return read_blob(&id, "object " + hex);
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

namespace {

// A loose object's file, its header, and a way to name it corrupt.
struct LooseFile {
  std::string path;
  std::string z;     // the deflated file
  std::string head;  // the first inflated bytes: "<type> <size>" NUL …
  std::string type;  // a copy: a view into `head` would not survive a move of a short one
  std::uint64_t size = 0;
  std::size_t nul = 0;  // where the header ends in the inflated object

  Error corrupt(std::string_view hex, const std::string& why) const {
    return Error("cannot read object " + std::string(hex) + " from git: its file " + path + " is corrupt (" + why +
                 "); `git fsck` lists every such object");
  }
};

// The loose object `hex` in `objects`, read and its header checked; nullopt
// when there is none (packed, or not here). Throws Error naming the file
// when it is corrupt.
std::optional<LooseFile> open_loose(const std::filesystem::path& objects, std::string_view hex) {
  if (hex.size() < 4) return std::nullopt;
  LooseFile f;
  f.path = (objects / std::string(hex.substr(0, 2)) / std::string(hex.substr(2))).string();
  // Followed where a link stands for the file, as git and libgit2 follow it.
  const Fd fd(::open(f.path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd.valid()) return std::nullopt;  // packed, or not here: libgit2's
  // A file, read to the size it has: a link to /dev/zero (or a FIFO) as
  // an object file would be read until memory runs out.
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw errno_error("cannot read " + f.path, errno);
  if (!S_ISREG(st.st_mode)) throw f.corrupt(hex, "it is not a file");
  f.z = read_all(fd.get(), f.path, static_cast<std::uint64_t>(st.st_size));
  // "<type> <decimal size>" NUL, then the content.
  auto head = zlib_peek(f.z, 32);
  if (!head) throw f.corrupt(hex, "it does not inflate");
  f.head = std::move(*head);
  const std::size_t space = f.head.find(' ');
  f.nul = f.head.find('\0');
  if (space == std::string::npos || f.nul == std::string::npos || space > f.nul) throw f.corrupt(hex, "no object header");
  f.type = f.head.substr(0, space);
  if (f.type != "blob" && f.type != "tree" && f.type != "commit" && f.type != "tag")
    throw f.corrupt(hex, "an unknown object type");
  const auto [end, ec] = std::from_chars(f.head.data() + space + 1, f.head.data() + f.nul, f.size);
  // Decimal digits, with no leading zero (as git reads a header).
  const bool leading_zero = f.nul > space + 2 && f.head[space + 1] == '0';
  if (ec != std::errc() || end != f.head.data() + f.nul || f.nul == space + 1 || leading_zero)
    throw f.corrupt(hex, "a bad size in its header");
  // What deflate can make of the bytes at most (1032:1): a header is not
  // a promise, and the buffer is allocated from it.
  if (f.size > std::uint64_t{f.z.size()} * 1032 + 64) throw f.corrupt(hex, "its header declares more than it can hold");
  return f;
}

// The whole object, header and all, inflated and (under ObjectIdChecks)
// hashed against its name.
std::string inflate_loose(const LooseFile& f, std::string_view hex) {
  auto whole = zlib_decompress_exact(f.z, f.nul + 1 + static_cast<std::size_t>(f.size));
  if (!whole) throw f.corrupt(hex, "it does not inflate to the " + std::to_string(f.size) + " bytes its header declares");
  if (id_checks.load() > 0) {
    ObjectHasher hasher(hex.size() == 64 ? "sha256" : "sha1");
    hasher.update(*whole);
    if (const std::string named = hex_object_id(hasher.finish_raw()); named != hex)
      throw f.corrupt(hex, "it holds other bytes than its name says: they hash to " + named);
  }
  return std::move(*whole);
}

git_object_t object_type(std::string_view type) {
  return type == "blob" ? GIT_OBJECT_BLOB : type == "tree" ? GIT_OBJECT_TREE : type == "commit" ? GIT_OBJECT_COMMIT
                                                                                                 : GIT_OBJECT_TAG;
}

// libgit2's reading of loose objects, done here (install_loose_reader).
struct LooseReader {
  git_odb_backend parent;
  std::vector<std::filesystem::path> dirs;
};

template <typename Fn>
int answer(const git_oid* oid, Fn&& fn) {
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, oid);
  try {
    return fn(std::string_view(hex));
  } catch (const std::exception& e) {
    git_error_set_str(GIT_ERROR_ODB, e.what());
    return GIT_ERROR;
  }
}

int loose_read(void** data, std::size_t* len, git_object_t* type, git_odb_backend* backend, const git_oid* oid) {
  auto* self = reinterpret_cast<LooseReader*>(backend);
  return answer(oid, [&](std::string_view hex) {
    for (const auto& dir : self->dirs) {
      const auto f = open_loose(dir, hex);
      if (!f) continue;
      const std::string whole = inflate_loose(*f, hex);
      const std::size_t size = whole.size() - (f->nul + 1);
      // NUL-terminated, as libgit2's own loose reader leaves it.
      auto* out = static_cast<char*>(git_odb_backend_data_alloc(backend, size + 1));
      if (!out) throw Error("out of memory reading object " + std::string(hex));
      std::memcpy(out, whole.data() + f->nul + 1, size);
      out[size] = '\0';
      *data = out;
      *len = size;
      *type = object_type(f->type);
      return 0;
    }
    return static_cast<int>(GIT_ENOTFOUND);
  });
}

int loose_read_header(std::size_t* len, git_object_t* type, git_odb_backend* backend, const git_oid* oid) {
  auto* self = reinterpret_cast<LooseReader*>(backend);
  return answer(oid, [&](std::string_view hex) {
    for (const auto& dir : self->dirs)
      if (const auto f = open_loose(dir, hex)) {
        *len = static_cast<std::size_t>(f->size);
        *type = object_type(f->type);
        return 0;
      }
    return static_cast<int>(GIT_ENOTFOUND);
  });
}

void loose_free(git_odb_backend* backend) { delete reinterpret_cast<LooseReader*>(backend); }

}  // namespace

std::optional<std::string> read_loose_blob(const std::filesystem::path& objects, std::string_view hex) {
  const auto f = open_loose(objects, hex);
  if (!f || f->type != "blob") return std::nullopt;  // libgit2 says what it is
  std::string whole = inflate_loose(*f, hex);
  whole.erase(0, f->nul + 1);
  return whole;
}

void install_loose_reader(git_repository* repo, const std::vector<std::filesystem::path>& dirs) {
  git_odb* odb = nullptr;
  check_git(git_repository_odb(&odb, repo), "cannot open git's objects");
  auto* reader = new LooseReader{};
  reader->dirs = dirs;
  git_odb_init_backend(&reader->parent, GIT_ODB_BACKEND_VERSION);
  reader->parent.read = loose_read;
  reader->parent.read_header = loose_read_header;
  reader->parent.free = loose_free;
  // Between libgit2's packed backend (3, ensure_libgit2) and its own loose
  // one (1): packs first, as git reads them, then every loose object here,
  // so libgit2's loose reader is asked only what this one did not find.
  const int rc = git_odb_add_backend(odb, &reader->parent, 2);
  git_odb_free(odb);
  if (rc < 0) {
    delete reader;
    check_git(rc, "cannot read git's loose objects");
  }
}

}  // namespace jpblob
