// The documents a work tree in JP's form (the restore mode) holds in their
// committed form instead: what smudge left as committed (JPBLOB_SKIP_SMUDGE=1
// for one checkout, jpblob.skipSmudgeErrors for a blob it could not find)
// and what `migrate` rewrote. Clean reads such a file as InputForm::Committed,
// or it would take its references for the user's data and wrap them
// (docs/FORMAT.md, "Literal objects").
//
// The record is `<git dir>/jpblob/committed-form` of each worktree, one path
// a line (relative to the top, as git names it). It is read once, changed
// in memory by note(), and merged into the file by flush() under a lock
// (`committed-form.lock`, flock) and written atomically, so two processes
// that flush at once lose neither's notes. A path holding a newline is
// never recorded (git allows one; clean then reads it as JP's form).
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace jpblob {

class CommittedFormRecord {
 public:
  // `git_dir`: the worktree's own git folder (GitRepo::gitdir()).
  explicit CommittedFormRecord(std::filesystem::path git_dir);

  // Whether `path` is in its committed form, by the file and this
  // process's notes. Reads the file the first time; a missing file lists
  // nothing. Throws Error when it cannot be read. Thread-safe.
  bool contains(const std::string& path) const;

  // Notes that `path` is now in its committed form (true) or in JP's form
  // (false). Nothing is written until flush(). Thread-safe.
  void note(const std::string& path, bool committed);

  // Merges this process's notes into the file; nothing to do without any.
  // Throws Error when the file cannot be written.
  void flush();

 private:
  const std::set<std::string>& listed() const;  // with mutex_ held

  std::filesystem::path folder_;
  mutable std::mutex mutex_;
  mutable std::optional<std::set<std::string>> listed_;
  std::map<std::string, bool> notes_;
};

}  // namespace jpblob
