// The index of a session folder's saved outputs (seed session-storage-design:
// `outputs.json`, a map of output id → metadata), written by `git jpblob run`
// each time it saves an artifact:
//
//   {"next": 4,
//    "outputs": {"3": {"tool": "bash", "size": 1048576,
//                      "created": "2026-11-22T10:00:00Z", "summary": "…"}}}
//
// "next" is one past the highest id ever recorded: it outlives the entries
// gc removes, so numbers are never given out twice and an id below it that
// has no file any more is known to have expired (docs/FORMAT.md).
//
// Every change is a read-merge-write under an exclusive flock(2) on the
// folder's lock file (OutputLockPlace), and the write is a temporary file
// renamed into place: concurrent writers never lose one another's entries,
// and a reader sees the old index or the new one, never a part.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/fs.hpp"

namespace jpblob {

class KeptByGit;  // core/artifacts/kept_by_git

struct OutputEntry {
  std::string tool;
  std::uint64_t size = 0;
  std::int64_t created = 0;  // seconds since the epoch
  std::string summary;
};

struct OutputIndex {
  std::uint64_t next = 0;
  std::map<std::uint64_t, OutputEntry> outputs;  // by artifact id
};

inline constexpr std::string_view kOutputIndexName = "outputs.json";
inline constexpr std::string_view kOutputLockName = ".outputs.lock";
inline constexpr std::size_t kSummaryChars = 200;

// The seed's summary: the first 200 characters (UTF-8 code points) of
// `text`, each CR and LF a space, never cutting a character in two.
std::string summarize_output(std::string_view text);

// RFC 3339 UTC, to the second: "2026-11-22T10:00:00Z".
std::string format_rfc3339(std::int64_t seconds);

// The index's JSON and back. parse throws Error naming `what` on anything
// that is not an index.
std::string serialize_index(const OutputIndex& index);
OutputIndex parse_index(std::string_view text, const std::string& what);

// Where the lock of an artifacts folder lives. In a repository's work
// tree, `<git common dir>/jpblob/locks/<output_lock_name>`: `git add -A`
// never takes a file there (git keeps its own `*.lock` files in the git
// folder too), whatever the repository's .gitignore says, in a clone as
// well. Outside any work tree, `.outputs.lock` in the folder itself.
struct OutputLockPlace {
  std::optional<std::filesystem::path> locks_dir;  // nothing: in the folder

  // The place for the artifacts folder `dir`, which exists: the repository
  // git finds from it (GitRepo::open). Throws Error when that repository
  // cannot be opened.
  static OutputLockPlace of(const std::filesystem::path& dir);
};

// The lock's name in the git folder: the SHA-256 of the folder's absolute
// path with links resolved (`canonical_dir`), then ".lock"; one folder,
// however it is spelled, has one lock.
std::string output_lock_name(const std::filesystem::path& canonical_dir);

// What became of a `.outputs.lock` an earlier git-jpblob left in the
// folder, once the lock is taken in the git folder.
enum class LegacyLock {
  None,     // there was none (or the lock is in the folder)
  Removed,  // it was free and untracked: removed
  Held,     // a process (an earlier git-jpblob) holds it: left
  Tracked,  // git tracks it (committed with `git add -A`): left for the user to `git rm`
};

// An exclusive flock on the folder's lock file (created when missing,
// never through a link), held for the object's life. `dirfd` is the
// artifacts folder, borrowed; `dir` names it in messages. The file taken
// is always the one its name holds: the lock is retried when the file was
// removed or replaced while this one waited, so the holder may remove it
// (remove_file) without two processes ever holding it at once. A lock in
// the git folder is removed as it is released, so that folder holds none
// at rest; in the artifacts folder it stays, as earlier versions expect,
// unless remove_file is called. Taking it
// in the git folder also retires a `.outputs.lock` left in the folder
// (LegacyLock): removed when no process holds it (a non-blocking flock
// succeeds) and git does not track it, as `kept` answers (asked of git
// when null).
class OutputIndexLock {
 public:
  OutputIndexLock(int dirfd, const std::filesystem::path& dir, const OutputLockPlace& place,
                  const KeptByGit* kept = nullptr);

  ~OutputIndexLock();
  OutputIndexLock(const OutputIndexLock&) = delete;
  OutputIndexLock& operator=(const OutputIndexLock&) = delete;

  LegacyLock legacy() const { return legacy_; }
  // Removes the lock file while it is held: its folder is going.
  void remove_file() const;

 private:
  // Whether the lock file's name still holds the file this locked.
  bool holds_name() const;

  Fd base_;  // the folder holding the lock file
  std::string name_;
  Fd fd_;
  bool in_git_dir_ = false;
  LegacyLock legacy_ = LegacyLock::None;
};

// The folder's index read through its descriptor; empty when there is
// none. Throws Error when it is unreadable or malformed.
OutputIndex read_output_index(int dirfd, const std::filesystem::path& dir);

// Replaces the folder's index atomically. The caller holds the lock.
void write_output_index(int dirfd, const std::filesystem::path& dir, const OutputIndex& index);

// Adds (or replaces) entry `id` under the lock, keeping every other entry,
// and raises "next" past it. Throws Error when the folder cannot be opened
// or the index cannot be written.
void record_output(const std::filesystem::path& dir, std::uint64_t id, const OutputEntry& entry);

}  // namespace jpblob
