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
// Every change is a read-merge-write under an exclusive flock(2) on
// `.outputs.lock` in the folder, and the write is a temporary file renamed
// into place: concurrent writers never lose one another's entries, and a
// reader sees the old index or the new one, never a part.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/fs.hpp"

namespace jpblob {

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

// An exclusive flock on the folder's `.outputs.lock` (created when
// missing, never through a link), held for the object's life. `dirfd` is
// the artifacts folder, borrowed; `dir` names it in messages.
class OutputIndexLock {
 public:
  OutputIndexLock(int dirfd, const std::filesystem::path& dir);

 private:
  Fd fd_;
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
