// Session-scoped artifact folders (SPEC §8, seed blob-and-artifact-storage).
//
// A session file `…/<stamp>_<id>.jsonl` owns the folder `…/<stamp>_<id>/`,
// which holds:
// - tool-output artifacts `<n>.<tool>.log`, addressed as artifact://<n>;
// - subagent outputs `<n>-<name>.md`, nested ones carrying their parent's
//   id as a prefix (`0-Parent.1-Child.md`), addressed as agent://<id>.
//
// Numbers continue after the highest already present (a resumed session
// never overwrites), and two processes allocating at once never get the
// same number: a number is claimed by creating its file exclusively, then
// checking that no other file claims it, and backing off to the next
// number when one does. Claims, not locks: of two racers at least one sees
// the other and moves on; a gap is harmless, a shared number is not, and
// there is no lock file to leave behind when an agent is killed.
//
// Every id and name is validated before any path is built from it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/fs.hpp"

namespace jpblob {

// The artifacts folder of a session file: its path without ".jsonl".
// Throws a usage Error when the name does not end in ".jsonl".
std::filesystem::path artifacts_dir_for(const std::filesystem::path& session_file);

// artifacts_dir_for, checked where it is untrusted: when the folder lies
// inside the git work tree around `cwd` (a clone), no component of it below
// the top may be a symbolic link (a repository may commit .jp/sessions as
// one); each is refused, naming it. A folder outside any work tree around
// `cwd` (JP's user-local data) is the user's own choice.
std::filesystem::path checked_artifacts_dir(const std::filesystem::path& session_file,
                                            const std::filesystem::path& cwd);

// The artifacts folder opened without following a link at its last
// component (the folder holding it is the user's choice), created with its
// parents when `create` says so; an invalid Fd when it is missing and not
// created. Throws Error when it is a link or cannot be opened.
Fd open_artifacts_folder(const std::filesystem::path& dir, bool create);

// A tool name or a subagent name: 1–64 of [A-Za-z0-9_-].
bool is_valid_name(std::string_view name);
// An artifact id: 1–18 decimal digits.
bool is_valid_artifact_id(std::string_view id);
// An agent output id: names joined by '.', at most 255 characters:
// numbered ("0-Parent.1-Child", what AgentOutputAllocator writes) or
// name-first as oh-my-pi writes them ("Anna", "Anna-2", "Parent.Child").
bool is_valid_agent_id(std::string_view id);

struct AllocatedFile {
  std::string id;               // "3", or "0-Parent.1-Child"
  std::filesystem::path path;   // the file, created empty
  Fd fd;                        // open for writing
};

// Allocates tool-output artifacts `<n>.<tool>.log` in one folder.
class ArtifactAllocator {
 public:
  explicit ArtifactAllocator(std::filesystem::path dir) : dir_(std::move(dir)) {}
  // Creates the folder when missing. Throws Error on a bad tool name or
  // when the file cannot be created.
  AllocatedFile allocate(std::string_view tool);

 private:
  std::filesystem::path dir_;
  std::optional<std::uint64_t> next_;  // found by a scan before the first allocation
};

// Allocates subagent outputs `<n>-<name>.md` in one folder, numbered per
// parent: top-level outputs count 0, 1, 2…; the children of "0-Parent"
// count separately as "0-Parent.0-A", "0-Parent.1-B"…
class AgentOutputAllocator {
 public:
  explicit AgentOutputAllocator(std::filesystem::path dir) : dir_(std::move(dir)) {}
  // `parent` is empty for a top-level output, else a valid agent id.
  AllocatedFile allocate(std::string_view name, std::string_view parent = {});

 private:
  std::filesystem::path dir_;
};

// The file of artifact `id` (valid) in a folder: the name that starts with
// "<id>.", a .log first when several do; nullopt when none does.
std::optional<std::string> artifact_file_name(const std::filesystem::path& dir, const std::string& id);

// The artifact ids present in a folder, sorted numerically (empty when the
// folder is missing).
std::vector<std::string> list_artifact_ids(const std::filesystem::path& dir);
// The agent output ids present in a folder, sorted.
std::vector<std::string> list_agent_ids(const std::filesystem::path& dir);

// Names and paths never served through an internal URL: .env files, *.pem,
// *_key, .git/config.
bool is_sensitive_path(const std::filesystem::path& path);

// Opens `name` inside `dir` for reading and returns its bytes. Refuses a
// sensitive name, anything but a regular file, and a symlink whose target
// (resolved) is outside `dir` or sensitive. `what` names the request in
// messages ("artifact://3").
std::string read_artifact_file(const std::filesystem::path& dir, const std::string& name,
                               const std::string& what);

}  // namespace jpblob
