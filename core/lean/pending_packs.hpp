// New blobs written once (docs/lean.md, "New blobs written once"): where
// our hook stages them (a lean work tree, or one becoming lean), the blobs
// clean makes are gathered in memory and written as one pack per burst of
// git's requests into the git folder (<common dir>/jpblob/pending), where
// git neither reads nor prunes them, beside a record of which blob each
// object is ("<sha256> <object id> <offset> <length>" a line). Smudge and
// every reader find a blob by the record and read its entry. The
// pre-commit hook stages by id with no second read or write: it first
// moves the pack into git's objects (admit) with a `.keep` file, git's own
// mark that repack and `git prune --expire=now` leave a pack alone, as a
// fetch adds one; a git command that then misses an object lists the packs
// again and finds it, with the trees the hook packed beside it. Once git
// holds each of its blobs by its own rules (the index that stays, HEAD),
// or none is referenced any more and the pack is older than
// gc.pruneExpire, the hook or `git jpblob gc` releases it: removes the
// `.keep` (or, never admitted, the pack) and the record. From then on
// git's gc decides, as for any object.
//
// Gathered blobs are written when kFlushBytes are gathered and when git
// falls quiet or closes the filter's pipe (flush()): git waits for its
// filter process to end before `git add` returns. A repository whose files
// take a group's permissions (core.sharedRepository) has no pack written
// by us: usable() is false and new blobs stay kept copies.
//
// Thread safety: every method may be called from several threads at once.
#pragma once

#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/format/digest.hpp"
#include "core/git/git_repo.hpp"
#include "core/store/blob_source.hpp"
#include "core/store/blob_store.hpp"

namespace jpblob {

class PendingPacks : public BlobSource {
 public:
  // What a flush waits for: 32 MiB of gzip bytes in memory at most.
  static constexpr std::uint64_t kFlushBytes = 32u << 20;
  // The first line of each `.keep` file written here: how gc knows a pack
  // of ours whose record a killed writer never made.
  static constexpr std::string_view kKeepMessage = "git-jpblob: blobs not committed yet";

  // `repo` must outlive this. Nothing is read or written until first use.
  PendingPacks(const GitRepo& repo, StoreOptions options);
  ~PendingPacks() override;

  // Whether new blobs can go here: the repository has a work tree, its own
  // pack folder, and no core.sharedRepository. Asked once (one git call).
  bool usable() const;

  // Gzips each payload not held yet and gathers it for the next pack;
  // `digests` are the payloads' SHA-256. Returns, for each, whether it was
  // new. Writes a pack whenever kFlushBytes are gathered. Throws Error.
  std::vector<bool> put_all(const std::vector<std::string_view>& payloads, const std::vector<Digest>& digests) const;
  // Writes what is gathered as one pack with its `.keep`, then its record.
  // Nothing when nothing is gathered. Throws Error.
  void flush() const;
  // Whether blobs are gathered that no pack holds yet.
  bool gathered() const;

  // While blobs are gathered, a marker in the folder names this process
  // (writing-<pid>): a pre-commit hook that misses a blob waits, at most
  // `limit_ms`, for every other live process's marker to go (`git commit
  // -a` runs the hook while its filter process, idle, writes its pack),
  // then reads the records again at the next look. True when it saw one.
  bool wait_for_writers(int limit_ms) const;

  // Whether a blob is here (gathered or recorded).
  bool contains(const Digest& digest) const;
  // The object id of a recorded blob, whose pack is written.
  std::optional<std::string> id_of(const Digest& digest) const;
  // The same, for staging: the pack holding it is admitted into git's
  // objects first, and the id is given only when that pack's index lists
  // it. Throws Error when the pack cannot be admitted.
  std::optional<std::string> staged_id(const Digest& digest) const;
  // The blob's verified content (BlobSource), gathered or from git's
  // objects; nullopt when it is not here. Throws Error when corrupt.
  std::optional<std::string> fetch(const Digest& digest, std::optional<std::uint64_t> size) const override;

  // A written pack, as its record lists it.
  struct Pack {
    std::string name;       // "pack-<hex>"
    std::time_t written = 0;  // when it was written (its record's time)
    std::time_t used = 0;     // when a clean last stood for one of its blobs (at least `written`)
    std::vector<std::pair<Digest, std::string>> blobs;  // blob, object id
    std::vector<std::uint64_t> offsets, lengths;         // each blob's entry
    bool admitted = false;  // moved into git's objects by a hook
  };
  std::vector<Pack> packs() const;
  // Hands the pack back to git's rules: removes its `.keep` (a pack never
  // admitted goes), then its record. With `used_before`, only when no
  // clean has used the pack since then (its record's time): false, and
  // nothing done, otherwise. Throws Error when the `.keep` cannot be
  // removed.
  bool release(const std::string& name,
               std::time_t used_before = std::numeric_limits<std::time_t>::max()) const;
  // Records whose pack is gone; packs here that no record names (a writer
  // killed between them) and `.keep` files of ours in git's objects that
  // none names, older than an hour. The records and the packs here go, the
  // `.keep` files are released. How many records, and how many other
  // files; with `remove` false, only counted.
  std::pair<std::size_t, std::size_t> sweep(bool remove) const;

  void set_compression_level(int level);
  std::filesystem::path folder() const { return folder_; }

 private:
  struct Recorded;
  void load_locked() const;  // (re)reads the records when the folder changed
  std::optional<std::string> read_entry(const Recorded& r) const;  // nullopt: its pack is not here
  // Moves the pack into git's objects (once); its index's ids, or null.
  const std::string* admit_locked(const std::string& name) const;
  const std::string* index_ids_locked(const std::string& name, const std::filesystem::path& pack_folder) const;
  void flush_locked() const;
  void append_locked(const std::string& gz) const;  // into the pack being written
  std::optional<std::filesystem::path> pack_folder_locked() const;
  std::optional<std::filesystem::path> own_pack_folder() const;  // git's objects/pack, when ours to write

  const GitRepo& repo_;
  StoreOptions options_;
  std::filesystem::path folder_;  // <common dir>/jpblob/pending
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace jpblob
