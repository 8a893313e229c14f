// What clean's outputs reference, recorded by the filter for the
// pre-commit hook (docs/FORMAT.md, "The record of what cleaned files
// reference").
//
// The hook must know every blob each staged conversation references. It
// used to read each one back from git's objects and scan it: at 50,000 new
// conversations, inflating and scanning them was most of the commit, and
// plain git never reads what it commits. The filter has the output in hand
// when git takes it: it scans it once (document_needs, exactly what the hook
// would run) and appends one line to a log of its own, keyed by the git id
// of that output. The hook looks each staged id up; an id not there (a file
// no filter cleaned, a log a killed process cut short, one a full disk
// refused) is read and scanned as before. A record is a cache of a pure
// function of the bytes: losing one costs time, never a blob.
//
// The logs are `<git common dir>/jpblob/needs/n2-<pid>-<random>.log`, one a
// filter process, written a line a conversation with one write(2) as each
// clean ends (git runs the hook of `git commit -a` while its filter process
// still lives). Only a conversation with nothing for a second clean to do
// (no inline payload, no reference clean would respell, readable) is
// recorded. A line:
//
//   <git id> <kind> <min size> <size> <count>[ <digest>:<declared size or ->]...
//
// A line not ended by a newline, or that does not parse exactly, is left
// out. The hook removes the logs it read once a commit has passed it; gc
// removes any it finds.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/base/fs.hpp"
#include "core/documents/document.hpp"

namespace jpblob {

// The logs' folder for a repository whose common git folder is `common_dir`.
std::filesystem::path needs_log_folder(const std::filesystem::path& common_dir);

struct RecordedNeeds {
  DocumentKind kind = DocumentKind::Conversation;
  std::uint64_t min_size = 0;   // the min_size document_needs was asked with
  std::uint64_t size = 0;       // of the output
  std::vector<BlobUse> references;
};

// One filter process's log. Thread-safe. Nothing is created until the
// first note().
class NeedsLog {
 public:
  explicit NeedsLog(std::filesystem::path folder);
  NeedsLog(const NeedsLog&) = delete;
  NeedsLog& operator=(const NeedsLog&) = delete;

  // Records what the output `id` (hex) references. Throws Error when the
  // line cannot be written; the caller reports it and goes on (the hook
  // then reads the document).
  void note(const std::string& id, const RecordedNeeds& needs);

 private:
  std::filesystem::path folder_;
  std::mutex mutex_;
  Fd fd_;
  bool failed_ = false;  // one failure ends the log: no line after a hole
};

// The logs in `folder`, of every version (none when it is missing).
std::vector<std::filesystem::path> list_needs_logs(const std::filesystem::path& folder);

// Every sound record in this version's logs of `folder` (the `n2-` of
// their names), by git id; `files` gets the logs read. A missing folder holds none. Never throws: a log that cannot
// be read is skipped.
std::unordered_map<std::string, RecordedNeeds> read_needs_logs(const std::filesystem::path& folder,
                                                               std::vector<std::filesystem::path>& files);

// The lines of a log's text that parse, by git id (read_needs_logs's parser).
void parse_needs_log(std::string_view text, std::unordered_map<std::string, RecordedNeeds>& into);

// One record as a log line (with its newline).
std::string needs_log_line(const std::string& id, const RecordedNeeds& needs);

// Removes `files` (logs read by read_needs_logs); a missing one is fine.
void remove_needs_logs(const std::vector<std::filesystem::path>& files);

}  // namespace jpblob
