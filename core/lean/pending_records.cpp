// The records and markers of the pending packs (core/lean/pending_packs):
// listing the records, judging a writer's marker, and sweeping what killed
// writers and hooks left.
#include "core/lean/pending_records.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <unordered_map>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/git/blob_pack.hpp"
#include "core/lean/pending_packs.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace pending {

bool is_pack_name(std::string_view name) {
  if (!name.starts_with("pack-")) return false;
  name.remove_prefix(5);
  return (name.size() == 40 || name.size() == 64) && name.find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

std::string marker_name() { return "writing-" + std::to_string(::getpid()); }

// When process `pid` started (field 22 of /proc/<pid>/stat, in clock
// ticks since boot): a marker names its writer by pid and this, so that
// another process given the same pid later is not waited for. Empty when
// unknown (no such process, no /proc).
std::string start_time_of(pid_t pid) {
  std::string stat;
  try {
    stat = read_file("/proc/" + std::to_string(pid) + "/stat", 4096);
  } catch (const Error&) {
    return {};
  }
  // The command name, in parentheses, may hold spaces: fields count from
  // after its last ')'.
  std::size_t at = stat.rfind(')');
  if (at == std::string::npos) return {};
  for (int field = 2; field < 22 && at != std::string::npos; ++field) at = stat.find(' ', at + 1);
  if (at == std::string::npos) return {};
  const std::size_t end = stat.find(' ', at + 1);
  return stat.substr(at + 1, end == std::string::npos ? std::string::npos : end - at - 1);
}

bool stale_marker(int dir, const std::string& name, pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
  const Fd file(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!file.valid()) return false;
  std::string written;
  try {
    written = read_all(file.get(), name, 64);
  } catch (const Error&) {
    return false;
  }
  const std::string now = start_time_of(pid);
  return !written.empty() && !now.empty() && written != now;
}

}  // namespace pending

using pending::is_pack_name;
using pending::kRecordSuffix;
using pending::kUsedSuffix;
using pending::stale_marker;

std::vector<PendingPacks::Pack> PendingPacks::packs() const {
  std::vector<Pack> out;
  const Fd dir(::open(folder_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir.valid()) return out;
  for (const std::string& name : folder_names(dir.get(), folder_.string())) {
    if (!name.ends_with(kRecordSuffix)) continue;
    const std::string pack = name.substr(0, name.size() - kRecordSuffix.size());
    if (!is_pack_name(pack)) continue;
    struct stat st {};
    // Non-blocking: a FIFO planted under a record's name is never waited on.
    const Fd file(::openat(dir.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!file.valid() || ::fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    Pack p{pack, st.st_mtim.tv_sec, st.st_mtim.tv_sec, {}, {}, {}, false};
    struct stat used {};
    if (::fstatat(dir.get(), (pack + std::string(kUsedSuffix)).c_str(), &used, AT_SYMLINK_NOFOLLOW) == 0)
      p.used = std::max(p.used, used.st_mtim.tv_sec);
    p.admitted = !fs::exists(folder_ / (pack + ".idx"));
    const std::string text = read_all(file.get(), (folder_ / name).string(), 64u << 20);
    std::size_t at = 0;
    while (at < text.size()) {
      std::size_t end = text.find('\n', at);
      if (end == std::string::npos) end = text.size();
      const std::string_view line(text.data() + at, end - at);
      at = end + 1;
      // "<sha256> <object id> <offset> <length>"
      std::vector<std::string_view> fields;
      for (std::size_t from = 0; from <= line.size();) {
        const std::size_t to = std::min(line.find(' ', from), line.size());
        fields.push_back(line.substr(from, to - from));
        from = to + 1;
      }
      if (fields.size() != 4) continue;
      const auto digest = Digest::from_hex(fields[0]);
      std::uint64_t offset = 0, length = 0;
      try {
        offset = std::stoull(std::string(fields[2]));
        length = std::stoull(std::string(fields[3]));
      } catch (const std::exception&) {
        continue;
      }
      if (!digest || (fields[1].size() != 40 && fields[1].size() != 64)) continue;
      p.blobs.emplace_back(*digest, std::string(fields[1]));
      p.offsets.push_back(offset);
      p.lengths.push_back(length);
    }
    out.push_back(std::move(p));
  }
  return out;
}

std::pair<std::size_t, std::size_t> PendingPacks::sweep(bool remove) const {
  std::size_t stale = 0, orphans = 0;
  const std::optional<fs::path> pack_folder = own_pack_folder();
  if (!pack_folder) return {0, 0};
  std::unordered_map<std::string, bool> recorded;
  std::error_code ec;
  for (const Pack& p : packs()) {
    if (fs::exists(folder_ / (p.name + ".idx"), ec) || fs::exists(*pack_folder / (p.name + ".idx"), ec)) {
      recorded.emplace(p.name, true);
      continue;
    }
    ++stale;  // its pack is gone: the record names nothing
    if (remove) ::unlink((folder_ / (p.name + std::string(kRecordSuffix))).c_str());
  }
  const std::time_t hour_ago = std::time(nullptr) - 3600;
  // A writer killed between its pack and its record left the pack here,
  // or a hook killed while admitting left a `.keep` of ours in git's
  // objects: after an hour (a writer of another machine sharing the
  // repository may be at work), the files here go and the `.keep` too.
  // A `.keep` a user or another tool made stays.
  for (const fs::path& folder : {folder_, *pack_folder}) {
    const Fd dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir.valid()) continue;
    const bool ours = folder == folder_;
    for (const std::string& name : folder_names(dir.get(), folder.string())) {
      const std::size_t dot = name.rfind('.');
      if (dot == std::string::npos) continue;
      const std::string pack = name.substr(0, dot), ext = name.substr(dot);
      if (!is_pack_name(pack) || recorded.count(pack)) continue;
      if (ours ? ext != ".pack" && ext != ".idx" && ext != kUsedSuffix : ext != ".keep") continue;
      const Fd file(::openat(dir.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
      struct stat st {};
      if (!file.valid() || ::fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_mtime > hour_ago) continue;
      if (!ours) {
        std::string text;
        try {
          text = read_all(file.get(), name, 4096);
        } catch (const Error&) {
          continue;
        }
        if (!text.starts_with(kKeepMessage)) continue;
      }
      ++orphans;
      if (remove) ::unlinkat(dir.get(), name.c_str(), 0);
    }
  }
  // A killed writer's half-written pack and its marker.
  orphans += remove_unfinished_packs(folder_, remove);
  const Fd dir(::open(folder_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (dir.valid())
    for (const std::string& name : folder_names(dir.get(), folder_.string())) {
      const std::string digits = name.starts_with("writing-") ? name.substr(8) : std::string();
      if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
      if (!stale_marker(dir.get(), name, static_cast<pid_t>(std::stol(digits)))) continue;
      ++orphans;
      if (remove) ::unlinkat(dir.get(), name.c_str(), 0);
    }
  return {stale, orphans};
}

}  // namespace jpblob
