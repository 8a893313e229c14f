// A git index file edited in place, for the two changes git's own commands
// cannot make without side effects or at git's cost: marking entries
// skip-worktree, and adding many entries at once.
//
// `git update-index --skip-worktree` writes the index as git writes any:
// each entry whose file is as new as the index it read (racily clean) is
// checked by running the clean filter over the whole file, and without the
// filter it is marked modified until the next refresh (size 0). Right
// after a clone, that is every conversation the checkout wrote last. The
// skip-worktree bit changes neither an entry's stat data nor any tree, so
// this writes the same entries with the bit set, the cache tree as it was,
// and the file's own timestamp as it was: what was racily clean stays so,
// and git re-checks it with the filter when next asked, as after any
// checkout (docs/lean.md, "What the clone's hook costs").
//
// index_file.cpp holds the edits (mark_skip_worktree_in_place,
// add_entries_in_place), index_snapshot.cpp the reading of stat data
// (read_index_snapshot, unchanged_since_indexed), and index_format.{hpp,cpp}
// the file format both parse and write.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/base/error.hpp"

namespace jpblob {

// What add_entries_in_place throws, having changed nothing, when an entry
// the index holds stands in a new entry's way: one (a file, a link, a
// submodule) where the new one needs a folder, or ones below where the new
// one is a file. `git update-index --index-info` would replace them without
// a word, and the commit would delete them.
struct IndexEntryInTheWay : Error {
  using Error::Error;
  // `entry` is where `path` needs a folder; or, with `below`, it lies below
  // `path`, which is to be a file.
  static IndexEntryInTheWay at(const std::string& path, const std::string& entry, bool below);
};

// Sets the skip-worktree bit of the stage-0 entries of the index file
// `index` whose paths are in `paths`, under git's lock (`<index>.lock`).
// Index versions 2, 3 and 4; `object_format` is "sha1" or "sha256". A
// version 2 index becomes version 3 when an entry gains the bit, as git
// does. Extensions are kept but for the two that hold offsets into the
// file: the end of the entries (EOIE) is written again where the index had
// one or `end_of_entries` asks for it (where git's settings say it writes
// one: a lean work tree's index.threads; git then reads the extensions
// beside the entries), and the offsets of blocks of entries (IEOT) are left for git
// to write again. Returns false, having changed nothing, when it cannot be
// sure of the file: a checksum that does not match, a split or sparse
// index (`link`, `sdir`), another required extension, a lock held by
// another git. The caller then asks git.
bool mark_skip_worktree_in_place(const std::filesystem::path& index, const std::unordered_set<std::string>& paths,
                                 const std::string& object_format, bool end_of_entries = false);

// A stage-0 entry to add: its path, mode (0100644) and id (raw bytes).
struct NewIndexEntry {
  std::string path;
  std::uint32_t mode = 0100644;
  std::string id;
};

// Adds `entries` to the index file `index`, each with the skip-worktree
// bit and no stat data, replacing a stage-0 entry of the same path, under
// git's lock: what `git update-index --index-info` then `--skip-worktree`
// make, without git's insertion of one entry at a time, which moves every
// entry after it (at 50,000 conversations, seconds per commit: the
// conversations sort after `.jp/blobs`). The cache tree loses the folders
// that hold a new entry, which git writes again at the commit; the
// fsmonitor and untracked caches, optional, are left for git to make
// again; the end of the entries is written again where the index had
// one (git wrote it under its settings); the file's timestamp stays (racily clean entries stay so). Returns
// false, having changed nothing, where mark_skip_worktree_in_place does,
// and where git would refuse the entries: a path in conflict, a folder
// where a file goes when git would say so, one path twice. Throws
// IndexEntryInTheWay, having changed nothing, where git would replace.
bool add_entries_in_place(const std::filesystem::path& index, std::vector<NewIndexEntry> entries,
                          const std::string& object_format);

// What an index file says of one stage-0 entry's work-tree file: its id
// and the stat data git recorded when it last read the file.
struct IndexedFile {
  std::string id;  // hex
  std::uint32_t ctime_s = 0, ctime_ns = 0, mtime_s = 0, mtime_ns = 0, dev = 0, ino = 0, mode = 0, uid = 0,
                gid = 0, size = 0;
  bool trusted = false;  // neither assume-unchanged nor skip-worktree: git compares this stat data
};

// The stage-0 entries of the index file `index` (path -> entry) and the
// file's own modification time, read from one open of the file; nullopt
// when it cannot be sure of it (what mark_skip_worktree_in_place
// refuses).
struct IndexSnapshot {
  std::unordered_map<std::string, IndexedFile> files;
  std::int64_t mtime_s = 0, mtime_ns = 0;
};
std::optional<IndexSnapshot> read_index_snapshot(const std::filesystem::path& index, const std::string& object_format);

// True when `file` is, by git's own test, the file the snapshot's entry
// was made from: a trusted entry, the same mode, size, inode, change and
// modification times (nanoseconds where git recorded them), and not racily
// clean (modified in the second the index was written, or later). Then its
// clean gives the staged version. Any doubt answers false.
bool unchanged_since_indexed(const IndexSnapshot& snapshot, const IndexedFile& entry, const std::filesystem::path& file);

}  // namespace jpblob
