#include "core/artifacts/output_index.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <nlohmann/json.hpp>

#include "core/artifacts/artifacts.hpp"
#include "core/artifacts/kept_by_git.hpp"
#include "core/base/error.hpp"
#include "core/format/digest.hpp"
#include "core/git/git_repo.hpp"

namespace jpblob {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string summarize_output(std::string_view text) {
  std::string out;
  std::size_t chars = 0, i = 0;
  while (i < text.size() && chars < kSummaryChars) {
    const auto lead = static_cast<unsigned char>(text[i]);
    std::size_t len = lead < 0x80 ? 1 : (lead >> 5) == 0x6 ? 2 : (lead >> 4) == 0xE ? 3 : (lead >> 3) == 0x1E ? 4 : 1;
    if (i + len > text.size()) break;  // a character cut by the end of what was kept
    bool whole = true;
    for (std::size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) whole = false;
    if (!whole) len = 1;
    if (len == 1 && lead >= 0x80) {
      out += "\xEF\xBF\xBD";  // a stray byte: JSON needs valid UTF-8
    } else if (text[i] == '\n' || text[i] == '\r') {
      out += ' ';
    } else {
      out.append(text.substr(i, len));
    }
    i += len;
    ++chars;
  }
  return out;
}

std::string format_rfc3339(std::int64_t seconds) {
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

namespace {

std::int64_t parse_rfc3339(const std::string& text) {
  std::tm tm{};
  const char* end = ::strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if (!end || *end) return 0;
  return static_cast<std::int64_t>(::timegm(&tm));
}

}  // namespace

std::string serialize_index(const OutputIndex& index) {
  json outputs = json::object();
  for (const auto& [id, e] : index.outputs)
    outputs[std::to_string(id)] = {
        {"tool", e.tool}, {"size", e.size}, {"created", format_rfc3339(e.created)}, {"summary", e.summary}};
  return json{{"next", index.next}, {"outputs", outputs}}.dump(2) + "\n";
}

OutputIndex parse_index(std::string_view text, const std::string& what) {
  OutputIndex index;
  try {
    const json j = json::parse(text);
    index.next = j.at("next").get<std::uint64_t>();
    for (const auto& [key, value] : j.at("outputs").items()) {
      if (!is_valid_artifact_id(key)) throw Error("bad artifact id '" + key + "'");
      OutputEntry e;
      e.tool = value.at("tool").get<std::string>();
      e.size = value.at("size").get<std::uint64_t>();
      e.created = parse_rfc3339(value.at("created").get<std::string>());
      e.summary = value.value("summary", std::string());
      index.outputs[std::stoull(key)] = std::move(e);
    }
  } catch (const std::exception& e) {
    throw Error(what + " is not an outputs index: " + e.what());
  }
  return index;
}

namespace {

// Absolute, with links resolved: every process names one folder alike.
fs::path canonical_folder(const fs::path& dir) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::absolute(dir), ec);
  return ec ? fs::absolute(dir).lexically_normal() : c;
}

}  // namespace

OutputLockPlace OutputLockPlace::of(const fs::path& dir) {
  const auto repo = GitRepo::open(fs::absolute(dir));
  if (!repo || !repo->workdir()) return {};
  const fs::path rel = canonical_folder(dir).lexically_relative(canonical_folder(*repo->workdir()));
  if (rel.empty() || *rel.begin() == "..") return {};
  return {repo->commondir() / "jpblob" / "locks"};
}

std::string output_lock_name(const fs::path& canonical_dir) {
  return Sha256::of(canonical_dir.string()).hex() + ".lock";
}

namespace {

// The `.outputs.lock` an earlier git-jpblob left in the folder `dirfd`,
// removed when no process holds it and git does not track it.
LegacyLock retire_legacy_lock(int dirfd, const fs::path& dir, const KeptByGit* kept) {
  const std::string name(kOutputLockName);
  const Fd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return LegacyLock::None;
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) return LegacyLock::Held;
  const fs::path file = dir / name;
  if (kept ? kept->tracks(file) : KeptByGit::ask({file}).tracks(file)) return LegacyLock::Tracked;
  // Removed while held: an earlier git-jpblob that opened it before this
  // and locks it after holds a lock nobody else can see, for that once.
  if (::unlinkat(dirfd, name.c_str(), 0) != 0 && errno != ENOENT)
    throw errno_error("cannot remove " + file.string(), errno);
  return LegacyLock::Removed;
}

}  // namespace

OutputIndexLock::OutputIndexLock(int dirfd, const fs::path& dir, const OutputLockPlace& place,
                                 const KeptByGit* kept) {
  fs::path where = dir;
  if (place.locks_dir) {
    std::error_code ec;
    fs::create_directories(*place.locks_dir, ec);
    if (ec) throw Error("cannot create " + place.locks_dir->string() + ": " + ec.message());
    base_ = Fd(::open(place.locks_dir->c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!base_.valid()) throw errno_error("cannot open " + place.locks_dir->string(), errno);
    name_ = output_lock_name(canonical_folder(dir));
    where = *place.locks_dir;
    in_git_dir_ = true;
  } else {
    base_ = Fd(::fcntl(dirfd, F_DUPFD_CLOEXEC, 0));
    if (!base_.valid()) throw errno_error("cannot use " + dir.string(), errno);
    name_ = std::string(kOutputLockName);
  }
  const std::string what = (where / name_).string();
  // The file may be removed (remove_file) or replaced while this waits:
  // the lock counts only when the name still holds the file locked.
  for (;;) {
    fd_ = Fd(::openat(base_.get(), name_.c_str(), O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!fd_.valid()) throw errno_error("cannot open the lock " + what, errno);
    while (::flock(fd_.get(), LOCK_EX) != 0)
      if (errno != EINTR) throw errno_error("cannot lock " + what, errno);
    if (holds_name()) break;
  }
  if (place.locks_dir) legacy_ = retire_legacy_lock(dirfd, dir, kept);
}

OutputIndexLock::~OutputIndexLock() {
  if (in_git_dir_) remove_file();
}

void OutputIndexLock::remove_file() const {
  // Only while the name still holds this file: once removed, it may be
  // another process's. No one else removes or replaces it while this is
  // held, so the check stays true until the unlink.
  if (holds_name()) ::unlinkat(base_.get(), name_.c_str(), 0);
}

bool OutputIndexLock::holds_name() const {
  struct stat held {}, named {};
  return ::fstat(fd_.get(), &held) == 0 && ::fstatat(base_.get(), name_.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
         held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

OutputIndex read_output_index(int dirfd, const fs::path& dir) {
  const std::string name(kOutputIndexName);
  const Fd fd(::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return {};
    throw errno_error("cannot read " + (dir / name).string(), errno);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw Error((dir / name).string() + " is not a regular file; refused");
  return parse_index(read_all(fd.get(), (dir / name).string(), 64 << 20), (dir / name).string());
}

void write_output_index(int dirfd, const fs::path& dir, const OutputIndex& index) {
  AtomicFile file(dirfd, std::string(kOutputIndexName), (dir / kOutputIndexName).string(), 0644);
  file.write(serialize_index(index));
  file.commit();
}

void record_output(const fs::path& dir, std::uint64_t id, const OutputEntry& entry) {
  const Fd folder = open_artifacts_folder(dir, false);
  if (!folder.valid()) throw errno_error("cannot open the artifacts folder " + dir.string(), ENOENT);
  const OutputIndexLock lock(folder.get(), dir, OutputLockPlace::of(dir));
  OutputIndex index = read_output_index(folder.get(), dir);
  index.outputs[id] = entry;
  index.next = std::max(index.next, id + 1);
  write_output_index(folder.get(), dir, index);
}

}  // namespace jpblob
