#include "core/artifacts/artifact_lifetime.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "core/artifacts/artifacts.hpp"
#include "core/artifacts/kept_by_git.hpp"
#include "core/artifacts/output_index.hpp"
#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/base/safe_path.hpp"
#include "core/git/config_reader.hpp"
#include "core/git/expiry_date.hpp"
#include "core/git/git_repo.hpp"

namespace jpblob {

namespace fs = std::filesystem;

std::optional<std::int64_t> parse_artifact_ttl(std::string_view value) {
  const auto bad = [&] {
    return Error(std::string("bad ") + kArtifactTtlKey + " '" + std::string(value) +
                     "': use a length git reads as a date (2.hours.ago, 1 day ago), seconds (3600), a number with s, m, h, "
                     "d or w (30m, 2h), or never");
  };
  std::optional<std::int64_t> ttl;
  try {
    ttl = expiry_age(value, kArtifactTtlKey);
  } catch (const Error&) {
    throw bad();
  }
  // 0, "now" or a date to come: an artifact would expire as it is written.
  if (ttl && *ttl <= 0) throw bad();
  return ttl;
}

std::optional<std::int64_t> configured_artifact_ttl(const fs::path& cwd) {
  const auto value = ConfigReader::through(GitCli(cwd)).get(kArtifactTtlKey);
  return value ? parse_artifact_ttl(*value) : kDefaultArtifactTtl;
}

std::string describe_ttl(std::optional<std::int64_t> ttl) {
  if (!ttl) return "never";
  if (*ttl % 3600 == 0) return std::to_string(*ttl / 3600) + "h";
  if (*ttl % 60 == 0) return std::to_string(*ttl / 60) + "m";
  return std::to_string(*ttl) + "s";
}

namespace {

// "<n>.<tool>.log" → n
std::optional<std::uint64_t> log_number(std::string_view name) {
  const auto dot = name.find('.');
  if (dot == std::string_view::npos || !is_valid_artifact_id(name.substr(0, dot)) || !name.ends_with(".log") ||
      !is_valid_name(name.substr(dot + 1, name.size() >= dot + 5 ? name.size() - dot - 5 : 0)))
    return std::nullopt;
  return std::stoull(std::string(name.substr(0, dot)));
}

std::string log_tool(std::string_view name) {
  const auto dot = name.find('.');
  return std::string(name.substr(dot + 1, name.size() - dot - 5));
}

bool expired(const struct stat& st, std::optional<std::int64_t> ttl, std::int64_t now) {
  return ttl && now - static_cast<std::int64_t>(st.st_mtime) > *ttl;
}

// Whether every regular file of the open folder `fd` is past the TTL.
bool all_expired(int fd, const fs::path& dir, std::optional<std::int64_t> ttl, std::int64_t now) {
  for (const auto& name : folder_names(fd, dir.string())) {
    struct stat st {};
    if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) && !expired(st, ttl, now))
      return false;
  }
  return true;
}

enum class Sweep { Expired, Session, Orphan };

// What one sweep is told: how, against which TTL and clock, and what git
// keeps.
struct SweepRules {
  Sweep how;
  std::optional<std::int64_t> ttl;
  std::int64_t now;
  DryRun dry_run;
  const KeptByGit& kept;
};

// Whether the sweep removes `name`, a regular file of the folder, when
// nothing keeps it. `ours`: the folder holds an index or an artifact, so
// its subagent outputs are git-jpblob's too.
bool sweep_takes(const std::string& name, const struct stat& st, const SweepRules& rules, bool ours) {
  if (log_number(name)) return rules.how != Sweep::Expired || expired(st, rules.ttl, rules.now);
  const bool bookkeeping = name == kOutputIndexName || name.starts_with(AtomicFile::kTempPrefix);
  if (bookkeeping) return rules.how != Sweep::Expired;
  const bool agent_output = name.ends_with(".md") && is_valid_agent_id(name.substr(0, name.size() - 3));
  return rules.how == Sweep::Orphan && ours && agent_output;
}

// Drops the index entries whose file is gone, keeping "next" past every
// number given (`highest_plus_one`: one past the highest file seen).
void drop_gone_entries(int fd, const fs::path& dir, const std::vector<std::string>& names, OutputIndex index,
                       bool has_index, std::uint64_t highest_plus_one) {
  const std::size_t before = index.outputs.size();
  const std::uint64_t next_before = index.next;
  std::erase_if(index.outputs, [&](const auto& kv) {
    struct stat st {};
    const std::string prefix = std::to_string(kv.first) + ".";
    return std::none_of(names.begin(), names.end(), [&](const std::string& n) {
      return n.starts_with(prefix) && log_number(n) &&
             ::fstatat(fd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    });
  });
  index.next = std::max(index.next, highest_plus_one);
  if (has_index || index.next != next_before || index.outputs.size() != before)
    if (has_index || index.next > 0) write_output_index(fd, dir, index);
}

// Takes the lock of the folder being swept (none for a dry run), and
// reports an earlier version's lock beside it that git tracks.
void lock_for_sweep(std::optional<OutputIndexLock>& lock, int fd, const fs::path& dir, const SweepRules& rules,
                    CleanupReport& report) {
  if (rules.dry_run == DryRun::Yes) return;
  lock.emplace(fd, dir, OutputLockPlace::of(dir), &rules.kept);
  if (lock->legacy() == LegacyLock::Tracked)
    report.kept.push_back({dir / kOutputLockName,
                           "tracked by git: an earlier git-jpblob's lock, no longer used; `git rm` it"});
}

// Cleans the open folder `fd` named `dir`. Returns whether the folder may
// now be empty (worth an rmdir).
bool sweep(int fd, const fs::path& dir, const SweepRules& rules, CleanupReport& report) {
  std::optional<OutputIndexLock> lock;
  lock_for_sweep(lock, fd, dir, rules, report);
  OutputIndex index;
  bool has_index = false;
  try {
    index = read_output_index(fd, dir);
    struct stat st {};
    has_index = ::fstatat(fd, std::string(kOutputIndexName).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  } catch (const Error& e) {
    if (rules.how == Sweep::Expired) {
      report.skipped.push_back(std::string(e.what()) + "; nothing removed in " + dir.string());
      return false;
    }
  }
  const std::vector<std::string> names = folder_names(fd, dir.string());
  const bool ours = has_index || std::any_of(names.begin(), names.end(), [](const auto& n) { return log_number(n); });
  std::uint64_t highest_plus_one = 0;
  bool kept_any = false;
  for (const auto& name : names) {
    struct stat st {};
    if (::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;  // gone meanwhile
    const auto number = log_number(name);
    if (number) highest_plus_one = std::max(highest_plus_one, *number + 1);
    if (S_ISLNK(st.st_mode)) {
      if (number) report.skipped.push_back((dir / name).string() + " is a symbolic link; left alone");
      continue;
    }
    if (!S_ISREG(st.st_mode) || !sweep_takes(name, st, rules, ours)) continue;
    if (auto why = rules.kept.why(dir, name)) {
      report.kept.push_back({dir / name, std::move(*why)});
      kept_any = true;
      continue;
    }
    report.removed.push_back(dir / name);
    report.removed_bytes += static_cast<std::uint64_t>(st.st_size);
    if (rules.dry_run == DryRun::No && ::unlinkat(fd, name.c_str(), 0) != 0 && errno != ENOENT)
      throw errno_error("cannot remove " + (dir / name).string(), errno);
  }
  if (rules.how != Sweep::Expired) {
    if (lock) lock->remove_file();
    return !kept_any;
  }
  if (rules.dry_run == DryRun::No) drop_gone_entries(fd, dir, names, std::move(index), has_index, highest_plus_one);
  return false;
}

// `quiet`: a folder left holding other files is expected (a session's
// subagent outputs), not worth a warning.
void remove_folder_if_empty(int parent, const fs::path& dir, DryRun dry_run, CleanupReport& report,
                            bool quiet = false) {
  if (dry_run == DryRun::Yes) return;
  if (::unlinkat(parent, dir.filename().c_str(), AT_REMOVEDIR) == 0)
    report.removed_folders.push_back(dir);
  else if ((errno == ENOTEMPTY || errno == EEXIST) && !quiet)
    report.skipped.push_back("kept " + dir.string() + ": it holds files git-jpblob did not write");
}

}  // namespace

ArtifactState artifact_state(const fs::path& dir, const std::string& id, std::optional<std::int64_t> ttl,
                             std::int64_t now) {
  const Fd fd = open_artifacts_folder(dir, false);
  if (!fd.valid()) return ArtifactState::Unknown;
  const std::uint64_t n = std::stoull(id);
  std::uint64_t highest_plus_one = 0;
  for (const auto& name : folder_names(fd.get(), dir.string())) {
    const auto number = log_number(name);
    if (!number) continue;
    highest_plus_one = std::max(highest_plus_one, *number + 1);
    if (*number != n) continue;
    struct stat st {};
    if (::fstatat(fd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    return expired(st, ttl, now) ? ArtifactState::Expired : ArtifactState::Live;
  }
  try {
    const OutputIndex index = read_output_index(fd.get(), dir);
    if (index.outputs.contains(n) || n < index.next) return ArtifactState::Expired;
  } catch (const Error&) {
    // A damaged index tells nothing; the files still do.
  }
  return n < highest_plus_one ? ArtifactState::Expired : ArtifactState::Unknown;
}

void cleanup_session(const fs::path& dir, const KeptByGit& kept, DryRun dry_run, CleanupReport& report) {
  const Fd fd = open_artifacts_folder(dir, false);
  if (!fd.valid()) return;
  if (sweep(fd.get(), dir, {Sweep::Session, std::nullopt, 0, dry_run, kept}, report)) {
    const SafeDir parent = SafeDir::open(dir.has_parent_path() ? dir.parent_path() : fs::path("."));
    remove_folder_if_empty(parent.fd(), dir, dry_run, report, true);
  }
}

void cleanup_expired(const fs::path& dir, const KeptByGit& kept, std::optional<std::int64_t> ttl, std::int64_t now,
                     DryRun dry_run, CleanupReport& report) {
  const Fd fd = open_artifacts_folder(dir, false);
  if (fd.valid()) sweep(fd.get(), dir, {Sweep::Expired, ttl, now, dry_run, kept}, report);
}

namespace {

// Calls `visit(fd, path, session_file_exists)` for every folder in root;
// links are skipped and reported. Returns root's descriptor (invalid when
// root is missing).
template <typename Visit>
Fd each_folder(const fs::path& top, const fs::path& root, std::vector<std::string>& skipped, Visit visit) {
  const SafeDir base = SafeDir::open(top);
  const fs::path rel = root.lexically_relative(top);
  Fd root_fd = base.open_folder(rel.empty() ? fs::path(".") : rel);
  if (!root_fd.valid()) return root_fd;
  std::vector<std::string> names = folder_names(root_fd.get(), root.string());
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    struct stat st {};
    if (::fstatat(root_fd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (S_ISLNK(st.st_mode)) {
      if (!name.ends_with(".jsonl")) skipped.push_back((root / name).string() + " is a symbolic link; skipped");
      continue;
    }
    if (!S_ISDIR(st.st_mode)) continue;
    const Fd fd(::openat(root_fd.get(), name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) {
      skipped.push_back(errno_error("cannot open " + (root / name).string(), errno).what());
      continue;
    }
    const bool has_session = ::fstatat(root_fd.get(), (name + ".jsonl").c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
    visit(fd.get(), root_fd.get(), root / name, has_session);
  }
  return root_fd;
}

}  // namespace

void cleanup_expired_root(const fs::path& top, const fs::path& root, const KeptByGit& kept,
                          std::optional<std::int64_t> ttl, std::int64_t now, DryRun dry_run, CleanupReport& report) {
  each_folder(top, root, report.skipped, [&](int fd, int root_fd, const fs::path& dir, bool has_session) {
    try {
      // An orphan (its session file is gone) goes whole, but only once
      // nothing in it is younger than the TTL: a session file missing from
      // this checkout (a switch to a branch without it, with its folder
      // left untracked) must not cost the artifacts of a live session. A
      // session the index holds is not gone: git gives it back.
      if (has_session || kept.tracks_session(dir) || !all_expired(fd, dir, ttl, now)) {
        sweep(fd, dir, {Sweep::Expired, ttl, now, dry_run, kept}, report);
      } else if (sweep(fd, dir, {Sweep::Orphan, ttl, now, dry_run, kept}, report)) {
        remove_folder_if_empty(root_fd, dir, dry_run, report);
      }
    } catch (const Error& e) {
      report.skipped.push_back(e.what());
    }
  });
}

void add_folder_stats(const fs::path& dir, ArtifactStats& stats) {
  const Fd fd = open_artifacts_folder(dir, false);
  if (!fd.valid()) return;
  ++stats.sessions;
  for (const auto& name : folder_names(fd.get(), dir.string())) {
    struct stat st {};
    if (!log_number(name) || ::fstatat(fd.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISREG(st.st_mode))
      continue;
    const auto size = static_cast<std::uint64_t>(st.st_size);
    ++stats.artifact_count;
    stats.total_bytes += size;
    ToolStats& t = stats.tools[log_tool(name)];
    ++t.count;
    t.bytes += size;
  }
}

void add_root_stats(const fs::path& top, const fs::path& root, ArtifactStats& stats) {
  each_folder(top, root, stats.skipped, [&](int, int, const fs::path& dir, bool) { add_folder_stats(dir, stats); });
}

fs::path sessions_root(const fs::path& cwd, fs::path& top) {
  top = cwd;
  if (const auto repo = GitRepo::open(cwd); repo && repo->workdir()) top = *repo->workdir();
  return top / ".jp" / "sessions";
}

}  // namespace jpblob
