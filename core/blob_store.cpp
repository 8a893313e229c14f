#include "blob_store.hpp"

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <unordered_map>

#include "error.hpp"
#include "gzip.hpp"
#include "parallel.hpp"

namespace jpblob {

namespace fs = std::filesystem;

std::string blob_relative_path(const Digest& digest) {
  const std::string hex = digest.hex();
  return hex.substr(0, 2) + "/" + hex.substr(2, 2) + "/" + hex + ".blob.gz";
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

std::string decode_blob(std::string_view gz, const Digest& digest,
                        std::optional<std::uint64_t> expected_size, std::uint64_t max_size,
                        const std::string& what) {
  // The declared size is checked before anything is reserved, and what is
  // reserved is also bounded by what the stored bytes can inflate to
  // (deflate's best ratio is 1032:1): a reference is input, not a promise.
  if (expected_size && *expected_size > max_size)
    throw Error("blob " + what + ": its reference declares " + std::to_string(*expected_size) +
                " bytes, more than jpblob.maxBlobSize (" + std::to_string(max_size) +
                ") allows; raise it with `git config jpblob.maxBlobSize <size>` if the file is genuine");
  const std::uint64_t limit = expected_size ? *expected_size : max_size;
  auto named = [&](std::string bytes) {
    if (Sha256::of(bytes) != digest)
      throw Error("blob " + what + " is corrupt: its content does not match its name");
    return bytes;
  };
  // A known size within what the stored bytes can inflate to: one call
  // into a buffer of that size (libdeflate, about twice zlib's speed: a
  // lean work tree inflates every blob it checks out). Anything else, and
  // any failure, takes the streaming inflate, which names the problem.
  const std::uint64_t inflatable = std::uint64_t{gz.size()} * 1032 + 64;
  if (expected_size && *expected_size <= inflatable)
    if (auto bytes = gzip_decompress_exact(gz, static_cast<std::size_t>(*expected_size)))
      return named(std::move(*bytes));
  std::string bytes;
  if (expected_size) bytes.reserve(static_cast<std::size_t>(std::min(*expected_size, inflatable)));
  try {
    gzip_decompress(gz, limit, [&](std::string_view piece) { bytes.append(piece); });
  } catch (const GzipTooLarge& e) {
    if (expected_size)
      throw Error("blob " + what + " is corrupt: it holds more than the " +
                  std::to_string(*expected_size) + " bytes its reference declares");
    throw Error("blob " + what + " is corrupt: " + e.what());
  } catch (const Error& e) {
    throw Error("blob " + what + " is corrupt: " + e.what());
  }
  if (expected_size && bytes.size() != *expected_size)
    throw Error("blob " + what + " is corrupt: it holds " + std::to_string(bytes.size()) +
                " bytes, its reference declares " + std::to_string(*expected_size));
  return named(std::move(bytes));
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
  // links outside is refused before anything is read or written.
  fs::path existing = root_;
  while (!fs::exists(fs::symlink_status(existing)) && existing.has_parent_path() &&
         existing != existing.parent_path())
    existing = existing.parent_path();
  check_inside_boundary(existing);
}

BlobStore BlobStore::for_storage(const fs::path& storage, const fs::path& boundary,
                                 StoreOptions options) {
  return BlobStore(storage / "blobs", boundary, options);
}

BlobStore BlobStore::for_work_tree(const fs::path& top, StoreOptions options) {
  return BlobStore(top / kWorkTreeStore, top, options);
}

BlobStore BlobStore::kept_copies(const fs::path& common_dir, StoreOptions options) {
  return BlobStore(common_dir / "jpblob" / "kept", common_dir, options, StoreLayout::Flat);
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
    if (ec) throw Error("cannot create blob store " + root_.string() + ": " + ec.message());
  }
  Fd fd(::open(root_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT && !create) return -1;
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

namespace {
// A blob that a new clean uses again gets a fresh mtime, as git freshens
// the objects it would have written: gc's grace period then protects it
// until the conversation that references it is written. A read-only store
// cannot be freshened, and needs no protection from a gc that cannot
// delete either.
// Only blobs older than ten minutes are touched, so tracked blob files do
// not churn on every add.
void freshen(int leaf, const std::string& name, const struct stat& st) {
  if (st.st_mtim.tv_sec + 600 < ::time(nullptr)) ::utimensat(leaf, name.c_str(), nullptr, 0);
}
}  // namespace

BlobStore::Presence BlobStore::presence(int leaf, const std::string& name, const Digest& digest,
                                        std::string_view bytes) const {
  struct stat st {};
  if (::fstatat(leaf, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return Presence::Absent;
  if (!S_ISREG(st.st_mode))
    throw Error("refusing blob " + path_of(digest).string() + ": it is not a regular file");
  Fd fd(::openat(leaf, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return Presence::Absent;
    throw errno_error("cannot open blob " + path_of(digest).string(), errno);
  }
  // What the file holds against the bytes it claims (their SHA-256 is its
  // name): equal bytes prove it sound without hashing again.
  std::string raw;
  try {
    raw = read_all(fd.get(), "blob " + path_of(digest).string(), bytes.size() + bytes.size() / 8 + 1024);
  } catch (const Error&) {
    return Presence::Corrupt;  // far larger than any gzip of the bytes
  }
  if (!gzip_holds(raw, bytes)) return Presence::Corrupt;
  freshen(leaf, name, st);
  return Presence::Sound;
}

void BlobStore::check_writable() const {
  if (writes_refused_) throw Error("cannot store blobs in " + root_.string() + ": " + *writes_refused_);
}

BlobStore::PutResult BlobStore::put(std::string_view bytes) const {
  check_writable();
  return put(Sha256::of(bytes), bytes);
}

std::optional<BlobStore::NewFile> BlobStore::start_file(const Digest& digest, std::string_view bytes, int root,
                                                        AtomicFile::Durability durability) const {
  const std::string name = digest.hex() + ".blob.gz";
  // Held by git out of the work tree: no folder, no file.
  switch (held_by_git_ ? held_by_git_(digest, bytes) : GitCopy::None) {
    case GitCopy::Holds:
      return std::nullopt;
    case GitCopy::Differs:
      // A file here would not reach the commit (git keeps the index's copy
      // out of the work tree) and the next checkout would delete it.
      throw CorruptBlobInTheWay("blob " + tracked_blob_path(digest) +
                                " in git's index does not hold what its name says, so it cannot stand for the "
                                "content being stored. Run `git jpblob repair`, which stages it again from this "
                                "content, then try again");
    case GitCopy::None:
      break;
  }
  // A gc may remove the leaf (or its parent) that this writer has just
  // opened or created, once it looks empty: then open it again, as git
  // does for its object folders. A temporary file, once made, keeps the
  // folder from being removed.
  for (int attempt = 1;; ++attempt) {
    try {
      Fd leaf = open_leaf(digest, true, root);
      const Presence there = presence(leaf.get(), name, digest, bytes);
      if (there == Presence::Sound) return std::nullopt;
      if (there == Presence::Corrupt)
        throw CorruptBlobInTheWay("blob " + path_of(digest).string() +
                                  " is corrupt: it does not hold what its name says, so it cannot stand for the "
                                  "content being stored. Run `git jpblob repair`, which writes it again from this "
                                  "content, then try again");
      auto file = std::make_unique<AtomicFile>(leaf.get(), name, "blob " + path_of(digest).string(), 0666,
                                               durability);
      return NewFile{std::move(leaf), std::move(file)};
    } catch (const CorruptBlobInTheWay&) {
      throw;
    } catch (const Error&) {
      if (attempt == 3) throw;
    }
  }
}

BlobStore::PutResult BlobStore::put(const Digest& digest, std::string_view bytes) const {
  check_writable();
  auto started = start_file(digest, bytes, -1,
                            options_.fsync ? AtomicFile::Durability::Full : AtomicFile::Durability::None);
  if (!started) return {digest, false};
  started->file->write(gzip_compress(bytes, options_.compression_level));
  const bool written = started->file->commit(AtomicFile::Replace::No);
  if (written) keep_copy(started->leaf.get(), digest, options_.fsync);
  return {digest, written};
}

void BlobStore::keep_pending() const {
  if (!kept_) return;
  std::vector<Digest> digests;
  {
    std::lock_guard lock(unkept_->mutex);
    digests.swap(unkept_->digests);
  }
  if (digests.empty()) return;
  for (const Digest& digest : digests) {
    const Fd leaf = open_leaf(digest, false);
    if (leaf.valid()) keep_copy(leaf.get(), digest, false);
  }
  // One sync for them all (copies made where no link could be are on
  // the kept folder's file system too).
  if (options_.fsync) sync_filesystem(kept_->root_fd(true), "blob store " + kept_->root().string());
}

namespace {

// A kept copy exists already under `name` in `dest`. Equal names should
// hold equal bytes, but a kept copy is a link: a write into its work-tree
// file in place (a shell's `>`, an editor) corrupted it too, and that file
// may since have been deleted. The file just published in `leaf` was
// written from the bytes its name is the digest of, so a copy that is not
// that very file is replaced by a link to it. A copy on another file
// system shares no bytes with any work-tree file and stays.
void relink_copy(int leaf, int dest, const std::string& name, const std::string& what, bool sync) {
  struct stat file {}, copy {};
  if (::fstatat(leaf, name.c_str(), &file, AT_SYMLINK_NOFOLLOW) != 0 ||
      ::fstatat(dest, name.c_str(), &copy, AT_SYMLINK_NOFOLLOW) != 0)
    return;  // either is gone: nothing to compare
  if (file.st_dev == copy.st_dev && file.st_ino == copy.st_ino) return;
  const std::string temp = std::string(AtomicFile::kTempPrefix) + std::to_string(::getpid()) + "-" + name;
  if (::linkat(leaf, name.c_str(), dest, temp.c_str(), 0) != 0) {
    if (cannot_link(errno) || errno == ENOENT || errno == EEXIST)
      return;  // no link possible here, or another writer at it
    throw errno_error("cannot make " + what, errno);
  }
  if (::renameat(dest, temp.c_str(), dest, name.c_str()) != 0) {
    const int err = errno;
    ::unlinkat(dest, temp.c_str(), 0);
    throw errno_error("cannot make " + what, err);
  }
  if (sync) fsync_dir(dest, what);
}

}  // namespace

void BlobStore::keep_copy(int leaf, const Digest& digest, bool sync) const {
  if (!kept_) return;
  const std::string name = digest.hex() + ".blob.gz";
  const std::string what = "a kept copy of blob " + digest.hex() + " in " + kept_->root().string();
  const Fd dest = kept_->open_leaf(digest, true);
  if (::linkat(leaf, name.c_str(), dest.get(), name.c_str(), 0) == 0) {
    if (sync) fsync_dir(dest.get(), what);
    return;
  }
  if (errno == EEXIST) return relink_copy(leaf, dest.get(), name, what, sync);
  if (errno == ENOENT) return;  // the file is gone (keep_pending): nothing to keep
  if (!cannot_link(errno)) throw errno_error("cannot make " + what, errno);
  // The git folder on another file system, or one without hard links: a
  // copy of the bytes just published.
  Fd src(::openat(leaf, name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!src.valid()) throw errno_error("cannot read blob " + path_of(digest).string(), errno);
  const std::string raw = read_all(src.get(), "blob " + path_of(digest).string());
  AtomicFile copy(dest.get(), name, what, 0666, sync ? AtomicFile::Durability::Full : AtomicFile::Durability::None);
  copy.write(raw);
  copy.commit(AtomicFile::Replace::No);
}

namespace {
// How many new blobs put_all() keeps pending at once: half the soft limit
// on open descriptors (512 under the usual 1,024), at most 16,384.
std::size_t chunk_size() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return 16384;
  return std::clamp<std::size_t>(static_cast<std::size_t>(limit.rlim_cur) / 2, 64, 16384);
}
}  // namespace

std::vector<BlobStore::PutResult> BlobStore::put_all(
    const std::vector<std::string_view>& payloads) const {
  check_writable();
  std::vector<std::optional<Digest>> digests(payloads.size());
  parallel_for(payloads.size(), [&](std::size_t i) { digests[i] = Sha256::of(payloads[i]); });
  std::vector<std::size_t> unique;  // first index of each distinct digest
  std::unordered_map<Digest, std::size_t, DigestHash> first;
  for (std::size_t i = 0; i < payloads.size(); ++i)
    if (first.emplace(*digests[i], i).second) unique.push_back(i);

  std::vector<char> written(payloads.size(), 0);
  // Chunks bound the descriptors held open between writing and publishing
  // (one leaf folder each) while keeping the filesystem syncs few: each one
  // flushes everything, and on a disk each costs a flush of the device
  // (docs/ARCHITECTURE.md, "Decisions": 84 syncs made a 100 MB clean 1.3x
  // slower than 6). Half the descriptor limit leaves the rest to the caller.
  const std::size_t kChunk = chunk_size();
  for (std::size_t start = 0; start < unique.size(); start += kChunk) {
    const std::size_t count = std::min(kChunk, unique.size() - start);
    std::vector<NewFile> pending(count);
    // The root is checked once a chunk rather than once a blob; a copy of
    // the descriptor, so no other caller of root_fd() can close it meanwhile.
    const Fd root(::dup(root_fd(true)));
    if (!root.valid()) throw errno_error("cannot open blob store " + root_.string(), errno);
    parallel_for(count, [&](std::size_t k) {
      const std::size_t i = unique[start + k];
      auto started = start_file(*digests[i], payloads[i], root.get(), AtomicFile::Durability::None);
      if (!started) return;
      started->file->write(gzip_compress(payloads[i], options_.compression_level));
      started->file->close_unsynced();
      pending[k] = std::move(*started);
    });
    const bool any = std::any_of(pending.begin(), pending.end(), [](auto& p) { return p.file != nullptr; });
    if (!any) continue;
    if (options_.fsync) sync_filesystem(root_fd(true), "blob store " + root_.string());
    for (std::size_t k = 0; k < count; ++k)
      if (pending[k].file) written[unique[start + k]] = pending[k].file->commit(AtomicFile::Replace::No);
    if (options_.fsync) sync_filesystem(root_fd(true), "blob store " + root_.string());
    if (kept_) {
      std::lock_guard lock(unkept_->mutex);
      for (std::size_t k = 0; k < count; ++k)
        if (written[unique[start + k]]) unkept_->digests.push_back(*digests[unique[start + k]]);
    }
  }
  std::vector<PutResult> results;
  results.reserve(payloads.size());
  for (std::size_t i = 0; i < payloads.size(); ++i) results.push_back({*digests[i], written[i] != 0});
  return results;
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
  // A blob file is never larger than its content plus gzip's worst-case
  // overhead; refusing anything far larger bounds memory for hostile files.
  return read_all(fd.get(), "blob " + path_of(digest).string(),
                  options_.max_blob_size + options_.max_blob_size / 8 + 1024);
}

std::optional<std::string> BlobStore::get(const Digest& digest,
                                          std::optional<std::uint64_t> expected_size) const {
  auto raw = read_raw(digest);
  if (!raw) return std::nullopt;
  return decode_blob(*raw, digest, expected_size, options_.max_blob_size,
                     path_of(digest).string());
}

}  // namespace jpblob
