// The lifetime of session artifacts (seed artifact-store-ttl): an artifact
// lives for jpblob.artifactTtl (default one hour, `never` allowed, in git's
// grammar for an expiry date) counted from its file's modification time;
// then `git jpblob cat` answers that it expired, and `git jpblob artifacts
// gc` removes it (cleanup_expired), or a whole session's artifacts
// (cleanup_session). `stats` counts what is kept.
//
// Removal never follows a link and never leaves the folder it cleans: every
// file is looked at with fstatat(AT_SYMLINK_NOFOLLOW) through the folder's
// descriptor, only regular files of git-jpblob's own names are unlinked,
// and a folder that is a link is skipped, named in the report. After any
// error in a folder (a damaged index), nothing in it is deleted. A file
// git tracks, or one a tracked session cites (KeptByGit), is never removed,
// whatever its age: it is named in the report's `kept` with the reason.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jpblob {

class KeptByGit;  // core/artifacts/kept_by_git

inline constexpr std::int64_t kDefaultArtifactTtl = 3600;  // the seed's one hour
inline constexpr const char* kArtifactTtlKey = "jpblob.artifactTtl";

// A TTL value in git's expiry-date grammar (core/git/expiry_date): seconds
// ("3600"), a number with s, m, h, d or w ("30m", "2h"), or any date git
// reads ("2.hours.ago", "2 days"), as the length of time from now to it;
// nullopt for "never". Throws Error naming the key otherwise, and for a
// length of 0 ("0", "now").
std::optional<std::int64_t> parse_artifact_ttl(std::string_view value);

// jpblob.artifactTtl as git reads it from `cwd` (inside a repository or
// not, `git -c` included); the default when unset.
std::optional<std::int64_t> configured_artifact_ttl(const std::filesystem::path& cwd);

// "1h", "30m", "90s", "never".
std::string describe_ttl(std::optional<std::int64_t> ttl);

enum class ArtifactState { Live, Expired, Unknown };

// What artifact `id` (valid) of the folder `dir` is at time `now`: Live
// when its file is younger than the TTL; Expired when its file is older,
// or when it is gone but the index knows it (an entry, or an id below the
// index's "next"), or is numbered below the highest artifact still there;
// Unknown when it was never allocated.
ArtifactState artifact_state(const std::filesystem::path& dir, const std::string& id,
                             std::optional<std::int64_t> ttl, std::int64_t now);

enum class DryRun { No, Yes };

struct KeptFile {
  std::filesystem::path path;
  std::string why;  // "tracked by git", "cited by <session>, which git tracks"
};

struct CleanupReport {
  std::vector<std::filesystem::path> removed;          // files removed (or that would be)
  std::vector<KeptFile> kept;                          // what git kept that would have gone
  std::uint64_t removed_bytes = 0;
  std::vector<std::filesystem::path> removed_folders;  // orphaned or emptied folders
  std::vector<std::string> skipped;                    // why something was left alone
};

// Each cleanup leaves alone what `kept` keeps: the caller asks git once
// (KeptByGit::ask) for every folder it cleans, a KeptByGit() where git has
// nothing to say.

// The seed's cleanup_session: removes every tool-output artifact of the
// folder, its index and lock, and the folder when nothing else is left.
// Subagent outputs (<id>.md) are kept.
void cleanup_session(const std::filesystem::path& dir, const KeptByGit& kept, DryRun dry_run,
                     CleanupReport& report);

// The seed's cleanup_expired for one folder: removes artifacts older than
// `ttl` (nothing for never) and drops the index entries of artifacts that
// are gone, keeping "next".
void cleanup_expired(const std::filesystem::path& dir, const KeptByGit& kept, std::optional<std::int64_t> ttl,
                     std::int64_t now, DryRun dry_run, CleanupReport& report);

// cleanup_expired over every artifacts folder in `root` (.jp/sessions),
// and orphaned folders (no `<name>.jsonl` beside them, in the work tree or
// the index) removed whole. A `root` that is a link, or passes through one
// below `top`, is refused (Error); a missing one holds nothing.
void cleanup_expired_root(const std::filesystem::path& top, const std::filesystem::path& root,
                          const KeptByGit& kept, std::optional<std::int64_t> ttl, std::int64_t now,
                          DryRun dry_run, CleanupReport& report);

struct ToolStats {
  std::uint64_t count = 0, bytes = 0;
};
struct ArtifactStats {
  std::uint64_t sessions = 0, artifact_count = 0, total_bytes = 0;
  std::map<std::string, ToolStats> tools;
  std::vector<std::string> skipped;
};

// The seed's stats, for one folder or every folder in `root`.
void add_folder_stats(const std::filesystem::path& dir, ArtifactStats& stats);
void add_root_stats(const std::filesystem::path& top, const std::filesystem::path& root, ArtifactStats& stats);

// Where the sessions are: `.jp/sessions` at the top of the work tree
// around `cwd`, else below `cwd`; `top` is set to that work tree or cwd.
std::filesystem::path sessions_root(const std::filesystem::path& cwd, std::filesystem::path& top);

}  // namespace jpblob
