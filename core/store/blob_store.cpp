#include "core/store/blob_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <linux/openat2.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <cerrno>
#include <ctime>
#include <unordered_map>

#include "core/base/error.hpp"
#include "core/format/gzip.hpp"

namespace jpblob {

namespace fs = std::filesystem;

std::string blob_relative_path(const Digest& digest) {
  const std::string hex = digest.hex();
  return hex.substr(0, 2) + "/" + hex.substr(2, 2) + "/" + hex + ".blob.gz";
}

std::string tracked_blob_folder(std::string_view hex_prefix) {
  return std::string(kWorkTreeStore) + "/" + std::string(hex_prefix.substr(0, 2)) + "/" +
         std::string(hex_prefix.substr(2, 2)) + "/";
}

std::string tracked_blob_path(const Digest& digest) {
  return std::string(kWorkTreeStore) + "/" + blob_relative_path(digest);
}

bool is_store_path(std::string_view repo_path) {
  return repo_path.size() > kWorkTreeStore.size() && repo_path.starts_with(kWorkTreeStore) &&
         repo_path[kWorkTreeStore.size()] == '/';
}

std::optional<Digest> digest_of_tracked_path(std::string_view repo_path) {
  constexpr std::size_t kLength = kWorkTreeStore.size() + 1 + 6 + 64 + 8;  // "/aa/bb/" <hex> ".blob.gz"
  if (repo_path.size() != kLength || !is_store_path(repo_path) || !repo_path.ends_with(".blob.gz"))
    return std::nullopt;
  auto digest = Digest::from_hex(repo_path.substr(kWorkTreeStore.size() + 7, 64));
  if (!digest || tracked_blob_path(*digest) != repo_path) return std::nullopt;
  return digest;
}

namespace {

// A reference's size is input, not a promise: checked before anything is
// reserved for it.
void check_declared_size(std::optional<std::uint64_t> expected_size, std::uint64_t max_size,
                         const std::string& what) {
  if (expected_size && *expected_size > max_size)
    throw Error("blob " + what + ": its reference declares " + std::to_string(*expected_size) +
                " bytes, more than jpblob.maxBlobSize (" + std::to_string(max_size) +
                ") allows; raise it with `git config jpblob.maxBlobSize <size>` if the file is genuine");
}

Error not_its_name(const std::string& what) {
  return Error("blob " + what + " is corrupt: its content does not match its name");
}

// The size to inflate `gz` into in one call, or nullopt: the reference's,
// within what deflate can make of the bytes (1032:1), else the trailer's
// (gzip_plausible_size); at most `cap`. A wrong one fails the exact
// inflate.
std::optional<std::size_t> one_call_size(std::string_view gz, std::optional<std::uint64_t> expected_size,
                                         std::uint64_t max_size, std::uint64_t cap) {
  std::optional<std::uint64_t> size = expected_size;
  if (!expected_size) size = gzip_plausible_size(gz, max_size);
  else if (*expected_size > std::uint64_t{gz.size()} * 1032 + 64) size.reset();
  if (!size || *size > cap) return std::nullopt;
  return static_cast<std::size_t>(*size);
}

// zlib's streaming inflate, each piece to `sink`, its faults named as the
// blob's; the size it held.
std::uint64_t inflate_named(std::string_view gz, std::optional<std::uint64_t> expected_size, std::uint64_t max_size,
                            const std::string& what, const std::function<void(std::string_view)>& sink) {
  std::uint64_t total = 0;
  try {
    gzip_decompress(gz, expected_size ? *expected_size : max_size, [&](std::string_view piece) {
      total += piece.size();
      sink(piece);
    });
  } catch (const GzipTooLarge& e) {
    if (expected_size)
      throw Error("blob " + what + " is corrupt: it holds more than the " + std::to_string(*expected_size) +
                  " bytes its reference declares");
    throw Error("blob " + what + " is corrupt: " + e.what());
  } catch (const Error& e) {
    throw Error("blob " + what + " is corrupt: " + e.what());
  }
  if (expected_size && total != *expected_size)
    throw Error("blob " + what + " is corrupt: it holds " + std::to_string(total) +
                " bytes, its reference declares " + std::to_string(*expected_size));
  return total;
}

}  // namespace

std::string decode_blob(std::string_view gz, const Digest& digest,
                        std::optional<std::uint64_t> expected_size, std::uint64_t max_size,
                        const std::string& what) {
  check_declared_size(expected_size, max_size, what);
  auto named = [&](std::string bytes) {
    if (Sha256::of(bytes) != digest) throw not_its_name(what);
    return bytes;
  };
  // A known size: one call into a buffer of that size (libdeflate, about
  // twice zlib's speed: a lean work tree inflates every blob it checks
  // out). Anything else, and any failure, takes the streaming inflate,
  // which names the problem.
  if (const auto size = one_call_size(gz, expected_size, max_size, max_size))
    if (auto bytes = gzip_decompress_exact(gz, *size)) return named(std::move(*bytes));
  std::string bytes;
  if (expected_size)
    bytes.reserve(static_cast<std::size_t>(std::min(*expected_size, std::uint64_t{gz.size()} * 1032 + 64)));
  inflate_named(gz, expected_size, max_size, what, [&](std::string_view piece) { bytes.append(piece); });
  return named(std::move(bytes));
}

std::uint64_t check_blob(std::string_view gz, const Digest& digest, std::optional<std::uint64_t> expected_size,
                         std::uint64_t max_size, const std::string& what) {
  check_declared_size(expected_size, max_size, what);
  // Small blobs (nearly all) in one call; a larger one, or one whose
  // sizes lie, hashed as it inflates: a check holds no blob whole.
  constexpr std::uint64_t kWhole = std::uint64_t{64} << 20;
  if (const auto size = one_call_size(gz, expected_size, max_size, kWhole))
    if (const auto bytes = gzip_decompress_exact(gz, *size)) {
      if (Sha256::of(*bytes) != digest) throw not_its_name(what);
      return bytes->size();
    }
  Sha256 hash;
  const std::uint64_t size =
      inflate_named(gz, expected_size, max_size, what, [&](std::string_view piece) { hash.update(piece); });
  if (hash.finish() != digest) throw not_its_name(what);
  return size;
}

BlobStore::BlobStore(fs::path root, fs::path boundary, StoreOptions options, StoreLayout layout)
    : root_(std::move(root)), options_(options), layout_(layout) {
  display_base_ = fs::absolute(boundary);
  std::error_code ec;
  boundary_ = fs::canonical(boundary, ec);
  if (ec) throw Error("cannot use " + boundary.string() + " as a blob store boundary: " +
                      ec.message());
  if (root_.is_relative()) root_ = fs::absolute(root_);
  // Check the nearest existing ancestor now, so a `.jp` or `.jp/blobs` that
  // links outside is refused before anything is read or written: at the
  // first use (root_fd), not here.
  fs::path existing = root_;
  while (!fs::exists(fs::symlink_status(existing)) && existing.has_parent_path() &&
         existing != existing.parent_path())
    existing = existing.parent_path();
  try {
    check_inside_boundary(existing);
  } catch (const Error& e) {
    unusable_ = e.what();
  }
}

BlobStore BlobStore::for_storage(const fs::path& storage, const fs::path& boundary,
                                 StoreOptions options) {
  return BlobStore(storage / "blobs", boundary, options);
}

BlobStore BlobStore::for_work_tree(const fs::path& top, StoreOptions options) {
  return BlobStore(top / kWorkTreeStore, top, options);
}

bool BlobStore::move_whole_to(const fs::path& dest, const std::function<bool(const Digest&)>& every) const {
  struct stat st {};
  if (::lstat(root_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  for (const StoreEntry& e : entries_by_name())
    if (e.kind != StoreEntry::Kind::Blob || !e.digest || !every(*e.digest)) return false;
  std::error_code ec;
  fs::create_directories(dest.parent_path(), ec);
  if (ec) throw Error("cannot create " + dest.parent_path().string() + ": " + ec.message());
  if (::rename(root_.c_str(), dest.c_str()) != 0) {
    if (errno == ENOENT) return false;
    throw errno_error("cannot move " + root_.string() + " to " + dest.string(), errno);
  }
  return true;
}

std::string BlobStore::relative_path(const Digest& digest) const {
  return layout_ == StoreLayout::Flat ? digest.hex() + ".blob.gz" : blob_relative_path(digest);
}

void BlobStore::check_inside_boundary(const fs::path& existing) const {
  std::error_code ec;
  const fs::path real = fs::canonical(existing, ec);
  if (ec) throw Error("cannot resolve blob store " + root_.string() + ": " + ec.message());
  const std::string b = boundary_.string(), r = real.string();
  const bool inside = r == b || (r.size() > b.size() && r.compare(0, b.size(), b) == 0 &&
                                 (b.back() == '/' || r[b.size()] == '/'));
  if (!inside)
    throw Error("refusing blob store " + root_.string() + ": it resolves to " + r +
                ", outside " + b + " (is .jp/blobs a symlink?)");
}

int BlobStore::root_fd(bool create) const {
  if (unusable_) throw Error(*unusable_);
  std::lock_guard lock(root_handle_->mutex);
  if (root_handle_->fd.valid()) {
    // A long-running filter outlives folders: git may remove an emptied
    // .jp/blobs and create it again within one command. Writing through a
    // descriptor of the removed folder would lose the blob, so reuse the
    // descriptor only while the path still names the same folder (the
    // descriptor's own identity was recorded when it was opened).
    struct stat by_path {};
    if (::stat(root_.c_str(), &by_path) == 0 && by_path.st_dev == root_handle_->dev &&
        by_path.st_ino == root_handle_->ino)
      return root_handle_->fd.get();
    root_handle_->fd = Fd();
  }
  if (create) {
    std::error_code ec;
    fs::create_directories(root_, ec);
    if (ec) {
      // Name the file that stands where a folder goes.
      for (fs::path at = root_; !at.empty() && at != at.parent_path(); at = at.parent_path()) {
        std::error_code lec;
        const auto st = fs::symlink_status(at, lec);
        if (!lec && fs::exists(st) && !fs::is_directory(st))
          throw Error("cannot create blob store " + root_.string() + ": " + at.string() +
                      " is a file, where the store needs a folder; move it away (`git mv` if git tracks it), "
                      "then try again");
      }
      throw Error("cannot create blob store " + root_.string() + ": " + ec.message());
    }
  }
  Fd fd(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) {
    // A file where the folder goes (a `.jp/blobs` committed as a file)
    // holds no blob: to a reader, no store; a writer is refused.
    if ((errno == ENOENT || errno == ENOTDIR) && !create) return -1;
    throw errno_error("cannot open blob store " + root_.string(), errno);
  }
  // Re-check after opening: the folder may have been created or replaced
  // since construction.
  check_inside_boundary(root_);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw errno_error("cannot open blob store " + root_.string(), errno);
  root_handle_->dev = st.st_dev;
  root_handle_->ino = st.st_ino;
  root_handle_->fd = std::move(fd);
  return root_handle_->fd.get();
}

namespace {

// Opens "aa/bb" below `dir` in one call, refusing any symlink on the way
// (openat2, Linux 5.6). Returns an invalid Fd with errno set; ENOSYS (or
// EPERM under a seccomp filter) means the kernel cannot, and the caller
// walks the components itself.
Fd open_beneath(int dir, const std::string& path) {
  open_how how{};
  how.flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC;
  how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  const long fd = syscalls().openat2(dir, path.c_str(), &how, sizeof how);
  if (fd >= 0) return Fd(static_cast<int>(fd));
  if (errno == EPERM) errno = ENOSYS;
  return Fd();
}

// A descriptor of its own for the store folder `fd` names.
Fd duplicate(int fd, const fs::path& root) {
  Fd copy(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  if (!copy.valid()) throw errno_error("cannot open blob store " + root.string(), errno);
  return copy;
}

}  // namespace

Fd BlobStore::open_leaf(const Digest& digest, bool create, int root) const {
  int dir = root >= 0 ? root : root_fd(create);
  if (dir < 0) return Fd();
  if (layout_ == StoreLayout::Flat) return duplicate(dir, root_);
  const std::string hex = digest.hex();
  // The common case, a leaf that exists, in one call.
  Fd leaf = open_beneath(dir, hex.substr(0, 2) + "/" + hex.substr(2, 2));
  if (leaf.valid()) return leaf;
  if (errno == ELOOP || errno == ENOTDIR || errno == EXDEV)
    throw Error("refusing blob store " + root_.string() + ": a folder on the way to " +
                blob_relative_path(digest) + " is a symlink or not a folder");
  if (errno == ENOENT && !create) return Fd();
  // Otherwise (to create it, or without openat2) one component at a time.
  Fd current;
  for (const std::string& part : {hex.substr(0, 2), hex.substr(2, 2)}) {
    const int parent = current.valid() ? current.get() : dir;
    Fd next(::openat(parent, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid() && errno == ENOENT && create) {
      if (syscalls().mkdirat(parent, part.c_str(), 0777) != 0 && errno != EEXIST)
        throw errno_error("cannot create folder in blob store " + root_.string(), errno);
      next = Fd(::openat(parent, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    }
    if (!next.valid()) {
      if (errno == ENOENT) return Fd();
      if (errno == ELOOP || errno == ENOTDIR)
        throw Error("refusing blob store " + root_.string() + ": " + part +
                    " is a symlink or not a folder");
      throw errno_error("cannot open folder in blob store " + root_.string(), errno);
    }
    current = std::move(next);
  }
  return current;
}

Fd BlobStore::open_folder(const std::string& relative) const {
  const int dir = root_fd(false);
  if (dir < 0) return Fd();
  if (relative.empty()) return duplicate(dir, root_);  // the root itself
  Fd folder = open_beneath(dir, relative);
  if (folder.valid()) return folder;
  if (errno == ENOENT) return Fd();
  if (errno != ENOSYS)
    throw Error("refusing blob store " + root_.string() + ": " + relative + " is a symlink or not a folder");
  Fd current;
  std::size_t start = 0;
  while (start <= relative.size()) {
    const std::size_t slash = std::min(relative.find('/', start), relative.size());
    const std::string part = relative.substr(start, slash - start);
    Fd next(::openat(current.valid() ? current.get() : dir, part.c_str(),
                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!next.valid()) {
      if (errno == ENOENT) return Fd();
      throw Error("refusing blob store " + root_.string() + ": " + relative + " is a symlink or not a folder");
    }
    current = std::move(next);
    start = slash + 1;
  }
  return current;
}

bool BlobStore::contains(const Digest& digest) const {
  Fd leaf = open_leaf(digest, false);
  if (!leaf.valid()) return false;
  struct stat st {};
  const std::string name = digest.hex() + ".blob.gz";
  return ::fstatat(leaf.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

std::optional<std::string> BlobStore::read_raw(const Digest& digest) const {
  Fd leaf = open_leaf(digest, false);
  if (!leaf.valid()) return std::nullopt;
  const std::string name = digest.hex() + ".blob.gz";
  // O_NONBLOCK: opening a FIFO under the name would wait for a writer.
  Fd fd(::openat(leaf.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return std::nullopt;
    if (errno == ELOOP)
      throw Error("refusing blob " + path_of(digest).string() + ": it is a symlink");
    throw errno_error("cannot open blob " + path_of(digest).string(), errno);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw errno_error("cannot read blob " + path_of(digest).string(), errno);
  if (!S_ISREG(st.st_mode)) throw Error("refusing blob " + path_of(digest).string() + ": it is not a regular file");
  return read_all(fd.get(), "blob " + path_of(digest).string(), options_.max_file_size());
}

std::optional<std::string> BlobStore::get(const Digest& digest,
                                          std::optional<std::uint64_t> expected_size) const {
  auto raw = read_raw(digest);
  if (!raw) return std::nullopt;
  return decode_blob(*raw, digest, expected_size, options_.max_blob_size,
                     path_of(digest).string());
}

}  // namespace jpblob
