// The content-addressed blob store (docs/FORMAT.md, "Blob files"):
//   <root>/<h0h1>/<h2h3>/<h>.blob.gz
// where h is the lowercase hex SHA-256 of the uncompressed bytes and the file
// is one deterministic gzip member of them.
//
// Sealed: this module is the only code that knows the layout. Everything
// else asks it for a blob's path (path_of, tracked_blob_path), lists it
// (for_each_entry), deletes from it (remove), verifies and sizes blobs, and
// looks up prefixes. Changing the layout is a change to this module alone.
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
#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/format/digest.hpp"
#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/store/blob_sink.hpp"

namespace jpblob {

// What put() throws when a corrupt file holds the blob's name.
class CorruptBlobInTheWay : public Error {
 public:
  using Error::Error;
};

// jpblob.maxBlobSize's default: the most one blob, and one restored file,
// may hold (docs/FORMAT.md, "Bounds").
inline constexpr std::uint64_t kDefaultMaxBlobSize = std::uint64_t{1} << 30;

struct StoreOptions {
  int compression_level = 6;                       // git config jpblob.compressionLevel
  std::uint64_t max_blob_size = kDefaultMaxBlobSize;  // git config jpblob.maxBlobSize
  bool fsync = true;                                   // git config jpblob.fsync

  // The most a blob file may hold: its content plus gzip's worst-case
  // overhead. Refusing anything larger bounds memory for hostile files.
  std::uint64_t max_file_size() const { return max_blob_size + max_blob_size / 8 + 1024; }
};

// Inflates and verifies the bytes of one blob file: a single gzip member,
// CRC-32 and ISIZE, at most `expected_size` (or `max_size` when not given)
// bytes, the size equal to `expected_size` when given, and SHA-256 equal to
// `digest`. Throws Error("blob <what> is corrupt: …") otherwise. Shared by the
// store and by readers of blob files held in git's object database.
std::string decode_blob(std::string_view gz, const Digest& digest,
                        std::optional<std::uint64_t> expected_size, std::uint64_t max_size,
                        const std::string& what);

// decode_blob's checks without keeping the content: its size. A blob of
// more than 64 MiB, or one whose declared sizes lie, is hashed as it is
// inflated, so a check's memory does not grow with the blob (verify, gc,
// the hook's and a push's checks, repair, the merge driver). A 1.4 MB file
// whose trailer claims 100 bytes and which inflates to 1.5 GB held about
// 1 GB before verify refused it, and now a few (BlobStore.ACheckHoldsNoBlobWhole).
std::uint64_t check_blob(std::string_view gz, const Digest& digest, std::optional<std::uint64_t> expected_size,
                         std::uint64_t max_size, const std::string& what);

// "aa/bb/<hex>.blob.gz", relative to a store root.
std::string blob_relative_path(const Digest& digest);

// The store's place in a work tree, relative to its top.
inline constexpr std::string_view kWorkTreeStore = ".jp/blobs";

// ".jp/blobs/aa/bb/<hex>.blob.gz": a blob's path relative to a work
// tree's top, and in a commit's tree.
std::string tracked_blob_path(const Digest& digest);
// The folder below the work tree's top that holds every blob whose hex
// digest starts with `hex_prefix` (4 or more hex characters).
std::string tracked_blob_folder(std::string_view hex_prefix);

// The digest a repository path names when it is exactly a blob's tracked
// path (its own folders, 64 lowercase hex, ".blob.gz"); nullopt otherwise.
std::optional<Digest> digest_of_tracked_path(std::string_view repo_path);

// True for any path below ".jp/blobs/".
bool is_store_path(std::string_view repo_path);

// How a store spreads its files: the work tree's (RFD 066) in two levels of
// folders, <h0h1>/<h2h3>/<h>.blob.gz; kept copies (core/lean/kept_copies)
// in one folder, where each new blob costs a link and no folders.
enum class StoreLayout { FanOut, Flat };

// One entry of a store, as its walk finds it.
struct StoreEntry {
  enum class Kind {
    Blob,       // <hex>.blob.gz in its own aa/bb folder
    Temporary,  // a leftover temporary file of a killed writer, in an aa/bb folder
    Foreign,    // anything else, at any level: not ours to judge or delete
  };
  Kind kind;
  std::string relative;          // its path below the store root
  std::optional<Digest> digest;  // set for a Blob
  std::uint64_t size = 0;
  std::time_t mtime = 0;
  bool symlink = false;          // a Foreign entry that is a symbolic link
  std::uint64_t device = 0, inode = 0;  // the file's identity, set where it was stat-ed (0 by name only)
};

// What remove() did.
enum class Removal {
  Removed,
  Gone,   // it was no longer there
  Fresh,  // it was used again since it was listed (newer than the cutoff): kept
};

class BlobStore : public BlobSink {
 public:
  // A store at `root` that must stay inside `boundary`. Neither needs to
  // exist yet except `boundary`; the root is created on the first put().
  // Throws Error when the root (or its nearest existing ancestor) resolves
  // outside the boundary.
  BlobStore(std::filesystem::path root, std::filesystem::path boundary,
            StoreOptions options = {}, StoreLayout layout = StoreLayout::FanOut);

  // The store of a JP storage folder (`.jp` in a work tree, or JP's
  // user-local folder): <storage>/blobs, bounded by `boundary`.
  static BlobStore for_storage(const std::filesystem::path& storage,
                               const std::filesystem::path& boundary, StoreOptions options = {});

  // The store of a work tree: <top>/.jp/blobs, bounded by `top`.
  static BlobStore for_work_tree(const std::filesystem::path& top, StoreOptions options = {});

  // Moves the store's whole folder to `dest` (same file system, its parent
  // created) in one rename, when every entry is a blob `every` accepts: a
  // way to take 100,000 files out of the way at once (core/lean/kept_copies
  // retires its folder so). The caller keeps writers away meanwhile. False,
  // with nothing moved, when an entry is refused or the folder is gone;
  // throws Error when the rename fails for another reason.
  bool move_whole_to(const std::filesystem::path& dest, const std::function<bool(const Digest&)>& every) const;

  // Makes `dest` hold this store's file of `digest` as well: a hard link
  // (no second set of bytes), or a copy where no link can be made (another
  // file system). A file `dest` holds under that name already that is not
  // this very file is replaced by a link to it, since equal names should
  // hold equal bytes and this one was just written from them. Nothing when
  // this store's file is gone. With `sync`, `dest`'s folder is synced.
  void link_into(const BlobStore& dest, const Digest& digest, bool sync) const;

  // One sync of the file system the store is on (what put_all() does
  // after each chunk): for a caller that linked many files into it.
  void sync() const;

  const std::filesystem::path& root() const { return root_; }

  // From now on put(), put_all() and replace_corrupt() throw
  // Error("cannot store blobs in <root>: <why>") before touching anything;
  // reading, listing and remove() still work. For a store that has no
  // business being written (a work-tree store with no repository around
  // it). Call before the store is shared between threads.
  void refuse_writes(std::string why) { writes_refused_ = std::move(why); }
  // False when the store's folder cannot be used at all (a link outside):
  // every use then throws, naming the link.
  bool usable() const { return !unusable_; }
  // The gzip level of the blobs put() writes from now on (a setting read
  // after the store was opened). Not while another thread puts.
  void set_compression_level(int level) { options_.compression_level = level; }

  std::filesystem::path path_of(const Digest& digest) const { return root_ / relative_path(digest); }
  // A blob's path below the root, in this store's layout.
  std::string relative_path(const Digest& digest) const;

  // True when a regular file for the digest is present. Does not verify it.
  bool contains(const Digest& digest) const;

  // A put() of a blob already present refreshes its mtime (see gc).
  using PutResult = BlobPut;
  // Stores `bytes`, skipping the write when the blob is present.
  PutResult put(std::string_view bytes) const;
  // The same, when the caller already knows the digest of `bytes`.
  PutResult put(const Digest& digest, std::string_view bytes) const;

  // Stores many payloads, with the effect of put() on each, faster: hashing,
  // compression and writing run on every core, and a chunk of new files is
  // made durable by one filesystem sync before any of them is published
  // (published with link(), so a present blob is still never rewritten),
  // then one more sync makes the new names durable (or the caller's one
  // sync for many calls: sync_names below). A crash leaves only
  // temporary files, never a partial blob under its name. Results are in
  // the order of `payloads`; `written` is true only for the first of equal
  // payloads, and only when its file was new.
  std::vector<PutResult> put_all(const std::vector<std::string_view>& payloads) const override;
  // The same, when the caller already knows each payload's digest
  // (`digests[i]` of `payloads[i]`). With `sync_names` false, the sync
  // after publishing is the caller's (sync()): a filter process makes one
  // for every document git gave it (NewBlobs::finish), as git's batched
  // fsyncs do. The data is still synced before any name is published.
  std::vector<PutResult> put_all(const std::vector<std::string_view>& payloads,
                                 const std::vector<Digest>& digests, bool sync_names = true) const;

  // Reads and verifies a blob (see decode_blob). Returns nullopt when the
  // file is absent; throws Error when it is present but corrupt or unsafe.
  std::optional<std::string> get(const Digest& digest,
                                 std::optional<std::uint64_t> expected_size = std::nullopt) const;

  // The raw gzip bytes of a blob file, unverified, or nullopt when absent.
  std::optional<std::string> read_raw(const Digest& digest) const;

  const StoreOptions& options() const { return options_; }

  // Calls fn for every entry of the store, in no particular order, never
  // following a symbolic link at any level. A missing root walks nothing.
  // fn must not remove entries (collect them, then remove()). Throws Error
  // naming the folder when one cannot be read.
  void for_each_entry(const std::function<void(const StoreEntry&)>& fn) const;
  std::vector<StoreEntry> entries() const;
  // The same listing with no stat of the blob files (size, mtime and
  // identity 0; a link or folder named like a blob is listed as a Blob):
  // for a caller that looks at few of them. stat() one before using it.
  std::vector<StoreEntry> entries_by_name() const;
  // `named` with its size and mtime, or as Foreign when it is not a
  // regular file; nullopt when it is gone.
  std::optional<StoreEntry> stat(const StoreEntry& named) const;

  // Deletes a Blob or Temporary entry through the folders the store opened
  // itself (no link followed), unless its mtime is now newer than
  // `not_newer_than`; then removes its `bb` and `aa` folders when that left
  // them empty, as git's prune does. Throws Error for a Foreign entry and
  // on failures other than the file being gone.
  Removal remove(const StoreEntry& entry, std::time_t not_newer_than) const;
  // remove() of many entries, faster: `waiters` deletions wait on the disk
  // at once (ext4 with -o discard waits in unlink(2)), each folder is
  // opened once, and each `bb` and `aa` folder is removed once, when the
  // last of its entries went, rather than tried after each of them (many
  // threads trying `aa` folders contend on the store's root, and a failed
  // rmdir(2) still walks the folder's cached names). `cutoff(i)` is
  // entries[i]'s not_newer_than, asked just before it is deleted. Results
  // are in the order of `entries`. Throws as remove() does.
  std::vector<Removal> remove_all(const std::vector<const StoreEntry*>& entries,
                                  const std::function<std::time_t(std::size_t)>& cutoff, unsigned waiters) const;
  // The entry remove() takes for a blob known by its digest alone.
  StoreEntry entry_for(const Digest& digest) const {
    return StoreEntry{StoreEntry::Kind::Blob, relative_path(digest), digest, 0, 0, false, 0, 0};
  }

  // Replaces a blob file that verify() found corrupt with `bytes`, whose
  // SHA-256 must be `digest` (an Error otherwise, and nothing is written).
  // The one exception to "a present blob is never rewritten": what is
  // there is not the blob. Returns false, writing nothing, when the file
  // is (by now) a good copy.
  bool replace_corrupt(const Digest& digest, std::string_view bytes) const;

  // Reads and fully checks a blob (see decode_blob) and returns its size;
  // nullopt when absent. Throws Error("blob <path> is corrupt: …"), the
  // path relative to the boundary (the work tree's top, or --store).
  std::optional<std::uint64_t> verify(const Digest& digest,
                                      std::optional<std::uint64_t> expected_size = std::nullopt) const;

  // The uncompressed size a Blob entry's gzip trailer records (ISIZE: the
  // size modulo 4 GiB), read without inflating; nullopt when unreadable.
  std::optional<std::uint64_t> trailer_size(const StoreEntry& entry) const;

  // The blobs present whose hex digest starts with `hex_prefix` (1 to 64
  // lowercase hex characters; a usage Error otherwise). Lists only the
  // folders the prefix can be in.
  std::vector<Digest> find_prefix(std::string_view hex_prefix) const;

 private:
  // remove()'s parts: the entry from its opened folder `leaf` (-1: the
  // folder is gone), and the folders that left empty.
  Removal remove_from(int leaf, const StoreEntry& entry, std::time_t not_newer_than) const;
  bool remove_leaf_if_empty(const std::string& leaf_path) const;
  void remove_level1_if_empty(const std::string& leaf_path) const;
  // Opens (creating when `create`) the leaf folder of a digest, below
  // `root` when given (a descriptor from root_fd()). Returns an invalid Fd
  // when it does not exist and `create` is false. A flat store's leaf is
  // its root.
  Fd open_leaf(const Digest& digest, bool create, int root = -1) const;
  // The walk behind for_each_entry (by_name false) and entries_by_name.
  void walk(bool by_name, const std::function<void(const StoreEntry&)>& fn) const;
  int root_fd(bool create) const;
  // What the leaf holds under the blob's name.
  enum class Presence { Absent, Sound, Corrupt };
  // Sound (and freshened) when the file there holds exactly `bytes` (the
  // blob's content): it is read and compared, since a file of that name may
  // have come from anyone (a clone, a --no-verify commit), and trusting it
  // would drop the only copy of the bytes being stored. Throws when the
  // name is taken by something that is not a regular file.
  Presence presence(int leaf, const std::string& name, const Digest& digest, std::string_view bytes) const;
  // A temporary file for a blob in its leaf folder, or nullopt when the
  // blob is present. Survives a gc removing the folder meanwhile.
  struct NewFile {
    Fd leaf;
    std::unique_ptr<AtomicFile> file;
  };
  // nullopt when a sound copy of the blob (`bytes`) is present.
  // Throws when a corrupt one is: it may be tracked, and git would put the
  // corrupt version back over a replacement (a stash, a reset), so the
  // bytes being stored stay where they are and `repair` is named.
  std::optional<NewFile> start_file(const Digest& digest, std::string_view bytes, int root,
                                    AtomicFile::Durability durability) const;
  // Opens a folder below the root ("aa" or "aa/bb") without following a
  // link; an invalid Fd when it (or the root) does not exist. Throws Error
  // when a component is a link or not a folder.
  Fd open_folder(const std::string& relative) const;
  void check_inside_boundary(const std::filesystem::path& existing) const;
  // Throws when refuse_writes() was called.
  void check_writable() const;

  std::filesystem::path root_;
  std::filesystem::path boundary_;  // canonical
  std::filesystem::path display_base_;  // the boundary as given: verify() names blobs relative to it
  StoreOptions options_;
  StoreLayout layout_;
  std::optional<std::string> writes_refused_;
  // Why the store's folder cannot be used at all (a `.jp` or `.jp/blobs`
  // linking outside): found when constructed, thrown by the first use,
  // so that a command that never uses the store (a commit of other files)
  // is not stopped by a link a teammate committed.
  std::optional<std::string> unusable_;
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
