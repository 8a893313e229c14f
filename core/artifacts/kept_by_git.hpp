// What git keeps in artifacts folders (issue 44; SPEC §2 "two homes, one
// truth", §8). A file the index tracks (at any stage), and a file that a
// tracked session cites, outlive their TTL: a committed session that says
// "Full output: artifact://0" must still resolve it, and a tracked file a
// cleanup deleted would show in `git status` as a deletion nobody made.
// `artifacts gc`, the per-session cleanup and `cat` ask the same question
// here, so what gc keeps, cat serves.
//
// "Tracked" is the index of the repository whose work tree holds the
// folder, as `git ls-files` lists it. "Cites" is read from the session
// file's staged versions (each stage of a conflict), from git's objects:
// what a commit holds, not the work-tree file an agent is still writing,
// which cites every artifact it made and would keep them all for ever.
// Outside a work tree nothing is kept, as before.
//
// Thread safety: a KeptByGit reads sessions when first asked about them
// and caches what it read; one thread at a time.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "core/git/git_repo.hpp"

namespace jpblob {

// What a session's text cites: artifact numbers (`artifact://<n>`) and
// the names of files (`<n>.<tool>.log`, `<id>.md`) that stand whole in
// it, not as part of a longer name ("10.bash.log" does not name
// "0.bash.log"; ".jp/sessions/s/0.bash.log" does). A name right after a
// backslash counts with and without its first letter, since JSON writes a
// newline before it as "\n".
struct Citations {
  std::set<std::uint64_t> artifacts;
  std::set<std::string, std::less<>> names;

  // Whether the file `name` of the session's folder is cited.
  bool cites(std::string_view name) const;
};

// Adds what `text` cites to `into`.
void add_citations(std::string_view text, Citations& into);

// The session file of an artifacts folder: `<dir>.jsonl`.
std::filesystem::path session_file_of(const std::filesystem::path& dir);

class KeptByGit {
 public:
  // Keeps nothing: what a folder outside every repository gets.
  KeptByGit() = default;

  // Asks git once per repository (`git ls-files --stage -z`) for the index
  // entries at and below `paths`: artifacts folders, session files, a
  // sessions root; missing ones are fine. A path in no work tree adds
  // nothing. Throws Error when git cannot list an index: a caller then
  // deletes nothing.
  static KeptByGit ask(const std::vector<std::filesystem::path>& paths);

  // Why the file `name` of the artifacts folder `dir` must stay whatever
  // its age: "tracked by git", "cited by <session>, which git tracks", or
  // that the tracked session cannot be read (then it keeps every file);
  // nullopt when nothing keeps it.
  std::optional<std::string> why(const std::filesystem::path& dir, const std::string& name) const;

  // Whether the index holds `file` (a path below one that was asked).
  bool tracks(const std::filesystem::path& file) const;
  // Whether the index holds the session file of `dir`: the session is
  // there for git even when its work-tree file was deleted.
  bool tracks_session(const std::filesystem::path& dir) const;

 private:
  struct Session {
    std::size_t repo;              // in repos_
    std::vector<std::string> ids;  // its staged versions
  };
  // What the session at `key` cites; nullopt when a staged version cannot
  // be read.
  const std::optional<Citations>& citations(const std::string& key) const;

  std::vector<GitRepo> repos_;
  std::unordered_set<std::string> tracked_;  // absolute, canonical paths
  std::map<std::string, Session> sessions_;  // the same, of *.jsonl
  mutable std::map<std::string, std::optional<Citations>> read_;
};

}  // namespace jpblob
