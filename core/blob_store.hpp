// The content-addressed blob store of SPEC §2:
//   <root>/<h0h1>/<h2h3>/<h>.blob.gz
// where h is the lowercase hex SHA-256 of the uncompressed bytes and the file
// is one deterministic gzip member of them.
//
// Safety: paths are built only from validated Digests. The root must resolve,
// symlinks followed, to a folder inside `boundary`; inside the root no symlink
// is followed at all (every component is opened with O_NOFOLLOW), so a store
// that is, or contains, a link leading elsewhere is refused rather than used.
//
// Thread safety: a BlobStore may be used from several threads at once; all
// state it keeps is immutable after construction except the lazily opened
// root descriptor, which is guarded.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "digest.hpp"
#include "fs.hpp"

namespace jpblob {

struct StoreOptions {
  int compression_level = 6;                          // git config jpblob.compressionLevel
  std::uint64_t max_blob_size = std::uint64_t{1} << 30;  // cap when no size is declared
  bool fsync = true;                                   // git config jpblob.fsync
};

// Inflates and verifies the bytes of one blob file: a single gzip member,
// CRC-32 and ISIZE, at most `expected_size` (or `max_size` when not given)
// bytes, the size equal to `expected_size` when given, and SHA-256 equal to
// `digest`. Throws Error("blob <what> is corrupt: …") otherwise. Shared by the
// store and by readers of blob files held in git's object database.
std::string decode_blob(std::string_view gz, const Digest& digest,
                        std::optional<std::uint64_t> expected_size, std::uint64_t max_size,
                        const std::string& what);

// "aa/bb/<hex>.blob.gz", relative to a store root.
std::string blob_relative_path(const Digest& digest);

class BlobStore {
 public:
  // A store at `root` that must stay inside `boundary`. Neither needs to
  // exist yet except `boundary`; the root is created on the first put().
  // Throws Error when the root (or its nearest existing ancestor) resolves
  // outside the boundary.
  BlobStore(std::filesystem::path root, std::filesystem::path boundary,
            StoreOptions options = {});

  // The store of a JP storage folder (`.jp` in a work tree, or JP's
  // user-local folder): <storage>/blobs, bounded by `boundary`.
  static BlobStore for_storage(const std::filesystem::path& storage,
                               const std::filesystem::path& boundary, StoreOptions options = {});

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path path_of(const Digest& digest) const {
    return root_ / blob_relative_path(digest);
  }

  // True when a regular file for the digest is present. Does not verify it.
  bool contains(const Digest& digest) const;

  // A put() of a blob already present refreshes its mtime (see gc).
  struct PutResult {
    Digest digest;
    bool written;  // false when the blob was already present
  };
  // Stores `bytes`, skipping the write when the blob is present.
  PutResult put(std::string_view bytes) const;
  // The same, when the caller already knows the digest of `bytes`.
  PutResult put(const Digest& digest, std::string_view bytes) const;

  // Stores many payloads, with the effect of put() on each, faster: hashing,
  // compression and writing run on every core, and a chunk of new files is
  // made durable by one filesystem sync before any of them is published
  // (published with link(), so a present blob is still never rewritten),
  // then one more sync makes the new names durable. A crash leaves only
  // temporary files, never a partial blob under its name. Results are in
  // the order of `payloads`; `written` is true only for the first of equal
  // payloads, and only when its file was new.
  std::vector<PutResult> put_all(const std::vector<std::string_view>& payloads) const;

  // Reads and verifies a blob (see decode_blob). Returns nullopt when the
  // file is absent; throws Error when it is present but corrupt or unsafe.
  std::optional<std::string> get(const Digest& digest,
                                 std::optional<std::uint64_t> expected_size = std::nullopt) const;

  // The raw gzip bytes of a blob file, unverified, or nullopt when absent.
  std::optional<std::string> read_raw(const Digest& digest) const;

  const StoreOptions& options() const { return options_; }

 private:
  // Opens (creating when `create`) the leaf folder of a digest, below
  // `root` when given (a descriptor from root_fd()). Returns an invalid Fd
  // when it does not exist and `create` is false.
  Fd open_leaf(const Digest& digest, bool create, int root = -1) const;
  int root_fd(bool create) const;
  // True when the leaf holds the blob (freshened); throws when the name is
  // taken by something that is not a regular file.
  bool present(int leaf, const std::string& name, const Digest& digest) const;
  void check_inside_boundary(const std::filesystem::path& existing) const;

  std::filesystem::path root_;
  std::filesystem::path boundary_;  // canonical
  StoreOptions options_;
  // The root folder's descriptor, opened on first use. Held by pointer so
  // the store stays movable.
  struct RootHandle {
    std::mutex mutex;
    Fd fd;
    dev_t dev = 0;  // the folder fd names
    ino_t ino = 0;
  };
  std::unique_ptr<RootHandle> root_handle_ = std::make_unique<RootHandle>();
};

}  // namespace jpblob
