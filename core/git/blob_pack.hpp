// Blob files into git's objects as one pack stream, the way a fetch brings
// objects in, instead of one `git hash-object -w` loose object (a file,
// often a folder) each: a commit that stages 11,500 new blobs spent 8 s of
// its 13 s writing them loose, and 0.15 s as a pack (docs/lean.md,
// "Staging new blobs as a pack").
#pragma once

#include <cstdint>
#include <exception>
#include <filesystem>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/git/index_entry.hpp"

namespace jpblob {

// One object for a pack: a blob whose bytes are a file's, or any object
// whose bytes are in memory.
struct PackObject {
  enum class Type { Tree = 2, Blob = 3 };
  Type type = Type::Blob;
  std::string file;            // a blob's bytes, read when its turn comes (a path)
  std::string bytes;           // or the object's bytes, when `file` is empty
};

struct ObjectHasher;  // a running hash of the repository's object format

// git's pack format (version 2) of whole objects, no deltas, made a piece
// at a time so memory holds one batch of objects (about 16 MB, or one
// larger object), whatever the count. Each batch's objects are read,
// hashed and framed on every core; the pack's own checksum runs in order.
class PackStream {
 public:
  // `object_format` is the repository's: "sha1" or "sha256". A file larger
  // than `max_size` bytes, or one that cannot be read, throws Error when
  // its turn comes.
  PackStream(std::vector<PackObject> objects, const std::string& object_format, std::uint64_t max_size);
  ~PackStream();
  PackStream(const PackStream&) = delete;
  PackStream& operator=(const PackStream&) = delete;

  // The pack's next piece (an InputChunks producer, core/git/subprocess):
  // the header, then one object a call, then the checksum; false after it.
  bool next(std::string& chunk);

  // Each object's id (hex), in order: whole once next() has returned false.
  const std::vector<std::string>& ids() const { return ids_; }

  // Where each object went, in order, for the pack's index: its id (raw),
  // the offset of its entry and the CRC-32 of the entry's bytes.
  struct Placed {
    std::string id;
    std::uint64_t offset = 0;
    std::uint32_t crc = 0;
  };
  const std::vector<Placed>& placed() const { return placed_; }

 private:
  // An object read, hashed and framed ahead of its turn.
  struct Made {
    std::string chunk;  // its entry in the pack
    std::string id;     // raw
    std::uint32_t crc = 0;
    std::exception_ptr error;  // thrown when its turn comes
  };
  Made make(PackObject& object) const;
  // The end of the batch that starts at `from`, and its bytes.
  std::pair<std::size_t, std::uint64_t> batch_end(std::size_t from) const;
  std::vector<Made> make_batch(std::size_t from, std::size_t end);

  std::vector<PackObject> objects_;
  std::vector<Made> batch_;
  std::size_t batch_next_ = 0;
  std::uint64_t max_size_;
  std::unique_ptr<ObjectHasher> pack_;  // the pack's checksum, over every byte before it
  std::string format_;
  std::vector<std::string> ids_;
  std::vector<Placed> placed_;
  std::uint64_t offset_ = 0;  // bytes made so far
  std::size_t next_ = 0;
  bool started_ = false, done_ = false;
  // The batch after batch_, made while batch_ is checksummed and written;
  // last, so that it is waited for before anything it uses goes.
  std::future<std::vector<Made>> ahead_;
};

// A pack written an object at a time, each object's entry written at once
// into a temporary file of `folder` (so a full disk fails that append, not
// a later step), then finished into `pack-<hex>.pack` and its index. The
// pack's header names its count, known at the end: written then, with the
// checksum over the file read back. An unfinished pack's file goes with
// the appender.
class PackAppender {
 public:
  PackAppender(std::filesystem::path folder, std::string object_format);
  ~PackAppender();
  PackAppender(const PackAppender&) = delete;
  PackAppender& operator=(const PackAppender&) = delete;

  // Appends a blob; its id (hex), and its entry's offset and length.
  // Throws Error.
  struct Appended {
    std::string id;
    std::uint64_t offset = 0, length = 0;
  };
  Appended append_blob(std::string_view bytes);
  std::size_t count() const;
  // The pack, synced, with its index: its name ("pack-<hex>"). Throws
  // Error. The appender is empty again after.
  std::string finish();

 private:
  struct State;
  std::filesystem::path folder_;
  std::string format_;
  std::unique_ptr<State> state_;
};

// A `.keep` holding `keep` for the pack `name` in `folder`, synced.
void write_pack_keep(const std::filesystem::path& folder, const std::string& name, std::string_view keep);
// The content of a blob's entry as write_pack stores it (the entry's bytes,
// from its offset for its length); nullopt when it is not such an entry.
std::optional<std::string> read_stored_blob(std::string_view entry);

// The unfinished files of a pack the hook was writing into `pack_folder`
// (git's objects/pack) when it was killed: git never reads them (no index
// names them), and its own `git gc` leaves them for two weeks. Each one
// whose writer is not running and that nothing has written for an hour
// (a repository shared over a network: a process of another machine) is
// deleted, or only counted when `remove` is false. How many.
std::size_t remove_unfinished_packs(const std::filesystem::path& pack_folder, bool remove);

// The id an object of `type` with these bytes has in a repository of
// `object_format` (hex).
std::string object_id(PackObject::Type type, std::string_view bytes, const std::string& object_format);

// The tree objects of every folder at or below `folder` (a path relative
// to the work tree's top, no trailing slash) that the index entries below
// it make, as git's cache tree would write them: (folder path, bytes),
// each after the folders inside it (the folder itself last). `entries`
// are stage-0 entries whose paths all start with `folder` + "/", in any
// order; `object_format` gives the ids' length.
std::vector<std::pair<std::string, std::string>> trees_below(const std::string& folder,
                                                             const std::vector<IndexEntry>& entries,
                                                             const std::string& object_format);

}  // namespace jpblob
