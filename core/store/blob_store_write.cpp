// The store's write path (core/store/blob_store.hpp): put and put_all,
// each blob published once with link() and never rewritten, the check of a
// file already under a blob's name, and linking a file into another store.
// Paths, folders and reads are in blob_store.cpp; the walk in
// blob_store_walk.cpp.
//
// Never rewrite a blob: AtomicFile::commit(Replace::No) publishes with
// link(), which cannot replace an existing file, so a concurrent writer
// that loses the race simply discards its copy.
//
// A blob file under a name is input: clean compares the file already there
// with the bytes it stands for (libdeflate into a buffer of the known size,
// then a compare; a warm clean went from 0.91x to 1.26x `git lfs clean` for
// it) and refuses, naming `repair`, when they differ. Replacing it would not
// do: git puts a tracked file back over a replacement (a stash, a reset),
// and the bytes would be nowhere.
#include "core/store/blob_store.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <unordered_map>

#include "core/base/descriptors.hpp"
#include "core/base/error.hpp"
#include "core/base/parallel.hpp"
#include "core/format/gzip.hpp"

namespace jpblob {

namespace fs = std::filesystem;
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
  return {digest, started->file->commit(AtomicFile::Replace::No)};
}

void BlobStore::sync() const { sync_filesystem(root_fd(true), "blob store " + root_.string()); }

namespace {

// A copy exists already under `name` in `dest`. Equal names should hold
// equal bytes, but a copy may be a link: a write into the file it was
// linked from in place (a shell's `>`, an editor) corrupted it too, and
// that file may since have been deleted. The file just published in `leaf` was
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

void BlobStore::link_into(const BlobStore& into, const Digest& digest, bool sync) const {
  const Fd source = open_leaf(digest, false);
  if (!source.valid()) return;  // the file is gone: nothing to link
  const int leaf = source.get();
  const std::string name = digest.hex() + ".blob.gz";
  const std::string what = "a copy of blob " + digest.hex() + " in " + into.root().string();
  const Fd dest = into.open_leaf(digest, true);
  if (::linkat(leaf, name.c_str(), dest.get(), name.c_str(), 0) == 0) {
    if (sync) fsync_dir(dest.get(), what);
    return;
  }
  if (errno == EEXIST) return relink_copy(leaf, dest.get(), name, what, sync);
  if (errno == ENOENT) return;  // the file is gone meanwhile: nothing to link
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
// How many new blobs put_all() keeps pending at once: half of what the
// descriptor limit leaves beyond git's headroom (core/base/descriptors:
// 499 under the usual 1,024, 19 under 64), at least 1, at most 16,384.
std::size_t chunk_size() { return std::clamp<std::size_t>(spare_descriptors() / 2, 1, 16384); }
}  // namespace

std::vector<BlobStore::PutResult> BlobStore::put_all(
    const std::vector<std::string_view>& payloads) const {
  check_writable();
  std::vector<std::optional<Digest>> hashed(payloads.size());
  parallel_for(payloads.size(), [&](std::size_t i) { hashed[i] = Sha256::of(payloads[i]); });
  std::vector<Digest> digests;
  digests.reserve(payloads.size());
  for (const auto& d : hashed) digests.push_back(*d);
  return put_all(payloads, digests);
}

std::vector<BlobStore::PutResult> BlobStore::put_all(const std::vector<std::string_view>& payloads,
                                                     const std::vector<Digest>& digests, bool sync_names) const {
  check_writable();
  std::vector<std::size_t> unique;  // first index of each distinct digest
  std::unordered_map<Digest, std::size_t, DigestHash> first;
  for (std::size_t i = 0; i < payloads.size(); ++i)
    if (first.emplace(digests[i], i).second) unique.push_back(i);

  std::vector<char> written(payloads.size(), 0);
  // Chunks bound the descriptors held open between writing and publishing
  // (one leaf folder each) while keeping the filesystem syncs few: each one
  // flushes everything, and on a disk each costs a flush of the device
  // (bench/NOTES.md, "A cold clean's cost on disk": with 512 a chunk, the
  // 100 MB clean's 84 syncs took a median 3.0 s against 2.8 s for 6, over 8
  // interleaved pairs). Half of what the descriptor limit spares leaves the
  // rest to the caller, the workers and libgit2's packs.
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
      auto started = start_file(digests[i], payloads[i], root.get(), AtomicFile::Durability::None);
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
    if (options_.fsync && sync_names) sync_filesystem(root_fd(true), "blob store " + root_.string());
  }
  std::vector<PutResult> results;
  results.reserve(payloads.size());
  for (std::size_t i = 0; i < payloads.size(); ++i) results.push_back({digests[i], written[i] != 0});
  return results;
}

}  // namespace jpblob
