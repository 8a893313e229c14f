#include "core/lean/pending_packs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <limits>
#include <set>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/base/parallel.hpp"
#include "core/base/trace.hpp"
#include "core/format/gzip.hpp"
#include "core/git/blob_pack.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/object_hash.hpp"
#include "core/lean/pending_records.hpp"

namespace jpblob {

namespace fs = std::filesystem;

using pending::is_pack_name;
using pending::kRecordSuffix;
using pending::kUsedSuffix;
using pending::marker_name;
using pending::stale_marker;
using pending::start_time_of;

struct PendingPacks::Recorded {
  std::string id;
  std::string pack;
  std::uint64_t offset = 0, length = 0;  // its entry in the pack
};

struct PendingPacks::State {
  std::mutex mutex;
  // Gathered for the next pack: each blob's gzip bytes, in order of arrival,
  // each written into the pack being appended as it came (`appended`).
  std::vector<std::pair<Digest, std::string>> gathered;
  std::unique_ptr<PackAppender> appender;
  std::vector<PackAppender::Appended> appended;
  std::unordered_map<Digest, std::size_t, DigestHash> gathered_at;
  std::uint64_t gathered_bytes = 0;
  // The records, as last read, and when their folder last changed.
  std::unordered_map<Digest, Recorded, DigestHash> recorded;
  std::optional<struct timespec> loaded_at;
  // usable(): asked once.
  std::optional<std::optional<fs::path>> pack_folder;
  std::string object_format;
  bool marked = false;  // this process's writing-<pid> marker exists
  // Packs in git's objects this process staged from: their indexes' ids.
  std::unordered_map<std::string, std::string> admitted;
};

PendingPacks::PendingPacks(const GitRepo& repo, StoreOptions options)
    : repo_(repo),
      options_(options),
      folder_(repo.commondir() / "jpblob" / "pending"),
      state_(std::make_unique<State>()) {}

PendingPacks::~PendingPacks() = default;

void PendingPacks::set_compression_level(int level) {
  std::lock_guard lock(state_->mutex);
  options_.compression_level = level;
}

std::optional<fs::path> PendingPacks::pack_folder_locked() const {
  if (!state_->pack_folder) {
    state_->pack_folder.emplace();
    // A folder of ours that is a link or a file (planted, or left by
    // another tool): never written through, never used.
    struct stat st {};
    if (::lstat(folder_.c_str(), &st) == 0 && !S_ISDIR(st.st_mode)) {
      JPBLOB_TRACE("pending packs: not usable here: " + folder_.string() + " is not a folder");
      return std::nullopt;
    }
    if (const auto top = repo_.workdir()) {
      try {
        const GitCli git(*top);
        *state_->pack_folder = git.own_pack_folder();
        if (*state_->pack_folder) state_->object_format = git.object_format();
      } catch (const Error& e) {
        JPBLOB_TRACE(std::string("pending packs: not usable here: ") + e.what());
        state_->pack_folder->reset();
      }
    }
  }
  return *state_->pack_folder;
}

std::optional<fs::path> PendingPacks::own_pack_folder() const {
  std::lock_guard lock(state_->mutex);
  return pack_folder_locked();
}

bool PendingPacks::usable() const {
  std::lock_guard lock(state_->mutex);
  return pack_folder_locked().has_value();
}

void PendingPacks::load_locked() const {
  struct stat st {};
  if (::stat(folder_.c_str(), &st) != 0) {
    state_->recorded.clear();
    state_->loaded_at.reset();
    return;
  }
  if (state_->loaded_at && state_->loaded_at->tv_sec == st.st_mtim.tv_sec &&
      state_->loaded_at->tv_nsec == st.st_mtim.tv_nsec)
    return;
  state_->recorded.clear();
  state_->loaded_at = st.st_mtim;
  for (const Pack& p : packs())
    for (std::size_t i = 0; i < p.blobs.size(); ++i)
      state_->recorded[p.blobs[i].first] = {p.blobs[i].second, p.name, p.offsets[i], p.lengths[i]};
}

std::vector<bool> PendingPacks::put_all(const std::vector<std::string_view>& payloads,
                                        const std::vector<Digest>& digests) const {
  std::vector<bool> written(payloads.size(), false);
  std::vector<std::size_t> todo;
  std::set<std::string> used;  // packs holding blobs this call stands for
  {
    std::lock_guard lock(state_->mutex);
    load_locked();
    std::unordered_map<Digest, bool, DigestHash> seen;
    for (std::size_t i = 0; i < payloads.size(); ++i) {
      if (state_->gathered_at.count(digests[i])) continue;
      if (const auto it = state_->recorded.find(digests[i]); it != state_->recorded.end()) {
        used.insert(it->second.pack);
        continue;
      }
      if (!seen.emplace(digests[i], true).second) continue;
      todo.push_back(i);
    }
  }
  // A pack a clean uses again is young again: gc, which looks at its
  // record's time just before releasing it, leaves it (as a blob file is
  // freshened when clean finds it stored).
  for (const std::string& pack : used) {
    const Fd mark(::open((folder_ / (pack + std::string(kUsedSuffix))).c_str(),
                         O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666));
    if (mark.valid()) ::futimens(mark.get(), nullptr);
  }
  if (todo.empty()) return written;
  int level;
  {
    std::lock_guard lock(state_->mutex);
    level = options_.compression_level;
  }
  std::vector<std::string> gz(todo.size());
  parallel_for(todo.size(), [&](std::size_t k) { gz[k] = gzip_compress(payloads[todo[k]], level); });
  std::lock_guard lock(state_->mutex);
  if (!state_->marked) {
    std::error_code ec;
    fs::create_directories(folder_, ec);
    const Fd mark(::open((folder_ / marker_name()).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666));
    state_->marked = mark.valid();
    if (mark.valid()) {
      try {
        write_all(mark.get(), start_time_of(::getpid()), "the marker " + marker_name());
      } catch (const Error&) {
        // The marker stands without it: a reused pid is then waited for.
      }
    }
  }
  if (!state_->marked) throw Error("cannot write new blobs into " + folder_.string());
  for (std::size_t k = 0; k < todo.size(); ++k) {
    const Digest& d = digests[todo[k]];
    // Another thread may have gathered it meanwhile.
    if (state_->gathered_at.count(d)) continue;
    // Written now, so that a full disk fails this document's clean rather
    // than a write after git has taken the reference.
    append_locked(gz[k]);
    state_->gathered_at.emplace(d, state_->gathered.size());
    state_->gathered_bytes += gz[k].size();
    state_->gathered.emplace_back(d, std::move(gz[k]));
    written[todo[k]] = true;
  }
  if (state_->gathered_bytes >= kFlushBytes) flush_locked();
  return written;
}

void PendingPacks::flush() const {
  std::lock_guard lock(state_->mutex);
  flush_locked();
}

void PendingPacks::flush_locked() const {
  if (state_->gathered.empty()) return;
  if (!pack_folder_locked()) throw Error("cannot write new blobs as a pack here: git's objects are not this process's to write");
  // A failed finish left no pack: written again from what is gathered.
  if (!state_->appender || state_->appended.size() != state_->gathered.size()) {
    state_->appender.reset();
    state_->appended.clear();
    for (const auto& [digest, gz] : state_->gathered) append_locked(gz);
  }
  std::string name;
  try {
    name = state_->appender->finish();
  } catch (...) {
    state_->appender.reset();
    throw;
  }
  state_->appender.reset();
  const auto& placed = state_->appended;
  std::string record;
  for (std::size_t i = 0; i < placed.size(); ++i)
    record.append(state_->gathered[i].first.hex())
        .append(" ")
        .append(placed[i].id)
        .append(" " + std::to_string(placed[i].offset) + " " + std::to_string(placed[i].length))
        .push_back('\n');
  write_file_atomic(folder_ / (name + std::string(kRecordSuffix)), record);
  JPBLOB_TRACE("pending packs: wrote " + std::to_string(placed.size()) + " new blobs as " + name);
  for (std::size_t i = 0; i < placed.size(); ++i)
    state_->recorded[state_->gathered[i].first] = {placed[i].id, name, placed[i].offset, placed[i].length};
  state_->appended.clear();
  state_->gathered.clear();
  state_->gathered_at.clear();
  state_->gathered_bytes = 0;
  if (state_->marked) {
    ::unlink((folder_ / marker_name()).c_str());
    state_->marked = false;
  }
}

void PendingPacks::append_locked(const std::string& gz) const {
  if (!state_->appender) {
    if (!pack_folder_locked()) throw Error("cannot write new blobs as a pack here: git's objects are not ours to write");
    state_->appender = std::make_unique<PackAppender>(folder_, state_->object_format);
  }
  try {
    state_->appended.push_back(state_->appender->append_blob(gz));
  } catch (...) {
    // Half an entry may be in its file: that pack is dropped, and the
    // flush writes one again from what is gathered.
    state_->appender.reset();
    state_->appended.clear();
    throw;
  }
}

bool PendingPacks::gathered() const {
  std::lock_guard lock(state_->mutex);
  return !state_->gathered.empty();
}

bool PendingPacks::wait_for_writers(int limit_ms) const {
  const std::string own = marker_name();
  bool saw = false;
  for (int waited = 0;; waited += 10) {
    bool writing = false;
    const Fd dir(::open(folder_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir.valid()) return saw;
    for (const std::string& name : folder_names(dir.get(), folder_.string())) {
      if (!name.starts_with("writing-") || name == own) continue;
      const std::string digits = name.substr(8);
      if (digits.empty() || digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
      if (stale_marker(dir.get(), name, static_cast<pid_t>(std::stol(digits)))) {
        ::unlinkat(dir.get(), name.c_str(), 0);  // a killed writer's
        continue;
      }
      writing = saw = true;
    }
    if (!writing || waited >= limit_ms) {
      JPBLOB_TRACE("pending packs: waited " + std::to_string(waited) + " ms for a writer (" +
                   (saw ? "saw one" : "none") + ")");
      // Read the records again whatever the folder's time says: it moves
      // in ticks of the kernel's coarse clock, and a writer may have
      // finished just before the first look.
      std::lock_guard lock(state_->mutex);
      state_->loaded_at.reset();
      return saw;
    }
    ::usleep(10000);
  }
}

std::optional<std::string> PendingPacks::read_entry(const Recorded& r) const {
  Fd pack(::open((folder_ / (r.pack + ".pack")).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  // Moved into git's objects by a hook, perhaps one killed before its
  // index followed: read where it is now.
  if (!pack.valid() && state_->pack_folder && *state_->pack_folder)
    pack = Fd(::open((**state_->pack_folder / (r.pack + ".pack")).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (!pack.valid() || r.length > options_.max_file_size() + 64) return std::nullopt;
  std::string entry(r.length, '\0');
  const ssize_t got = ::pread(pack.get(), entry.data(), entry.size(), static_cast<off_t>(r.offset));
  if (got != static_cast<ssize_t>(entry.size())) return std::nullopt;
  auto bytes = read_stored_blob(entry);
  // A damaged entry is not "not here": decode_blob names it corrupt.
  return bytes ? std::move(bytes) : std::optional<std::string>(std::string());
}

const std::string* PendingPacks::admit_locked(const std::string& name) const {
  if (const auto known = state_->admitted.find(name); known != state_->admitted.end()) return &known->second;
  const auto pack_folder = pack_folder_locked();
  if (!pack_folder) throw Error("cannot stage new blobs: git's objects are not this process's to write");
  const fs::path idx = folder_ / (name + ".idx");
  if (!fs::exists(idx)) return index_ids_locked(name, *pack_folder);  // admitted already, by another hook
  // As a fetch adds a pack: its `.keep` first, then the pack, then the
  // index that makes git see it. Until the blobs are committed, git's gc
  // leaves it alone.
  write_pack_keep(*pack_folder, name, kKeepMessage);
  for (const char* ext : {".pack", ".idx"}) {
    const fs::path from = folder_ / (name + ext), to = *pack_folder / (name + ext);
    if (::rename(from.c_str(), to.c_str()) == 0 || errno == ENOENT) continue;
    if (errno != EXDEV) throw errno_error("cannot move " + from.string() + " into git's objects", errno);
    // git's objects on another file system (GIT_OBJECT_DIRECTORY): copied.
    write_file_atomic(to, read_file(from, UINT64_MAX));
    ::unlink(from.c_str());
  }
  const Fd dir(::open(pack_folder->c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.valid()) fsync_dir(dir.get(), "admit " + name);
  JPBLOB_TRACE("pending packs: " + name + " joins git's objects, kept until its blobs are committed");
  return index_ids_locked(name, *pack_folder);
}

// The object ids the index of pack `name` in `pack_folder` lists (raw,
// sorted, end to end), read once; null when it is not there or not an
// index git would read.
const std::string* PendingPacks::index_ids_locked(const std::string& name, const fs::path& pack_folder) const {
  std::string idx;
  try {
    idx = read_file(pack_folder / (name + ".idx"), UINT64_MAX);
  } catch (const Error&) {
    return nullptr;  // released and repacked by git, or never written
  }
  const std::size_t hash = state_->object_format == "sha256" ? 32 : 20, header = 8 + 256 * 4;
  if (idx.size() < header || idx.compare(0, 4, "\xfftOc", 4) != 0) return nullptr;
  const auto be32 = [&](std::size_t at) {
    return static_cast<std::uint32_t>(static_cast<unsigned char>(idx[at])) << 24 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(idx[at + 1])) << 16 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(idx[at + 2])) << 8 |
           static_cast<std::uint32_t>(static_cast<unsigned char>(idx[at + 3]));
  };
  const std::size_t count = be32(8 + 255 * 4);
  if (be32(4) != 2 || idx.size() < header + count * hash) return nullptr;
  return &state_->admitted.emplace(name, idx.substr(header, count * hash)).first->second;
}

std::optional<std::string> PendingPacks::staged_id(const Digest& digest) const {
  std::lock_guard lock(state_->mutex);
  load_locked();
  const auto it = state_->recorded.find(digest);
  if (it == state_->recorded.end()) return std::nullopt;
  // Staged only when the pack's index lists it, the index git finds it
  // by: a record that names an object its pack lacks stages nothing.
  const std::string* ids = admit_locked(it->second.pack);
  if (!ids) return std::nullopt;
  const std::string raw = raw_object_id(it->second.id);
  std::size_t lo = 0, hi = ids->size() / raw.size();
  while (lo < hi) {
    const std::size_t mid = (lo + hi) / 2;
    const int c = ids->compare(mid * raw.size(), raw.size(), raw);
    if (c == 0) return it->second.id;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return std::nullopt;
}

bool PendingPacks::contains(const Digest& digest) const {
  std::lock_guard lock(state_->mutex);
  if (state_->gathered_at.count(digest)) return true;
  load_locked();
  return state_->recorded.count(digest) > 0;
}

std::optional<std::string> PendingPacks::id_of(const Digest& digest) const {
  std::lock_guard lock(state_->mutex);
  load_locked();
  const auto it = state_->recorded.find(digest);
  if (it == state_->recorded.end()) return std::nullopt;
  return it->second.id;
}

std::optional<std::string> PendingPacks::fetch(const Digest& digest, std::optional<std::uint64_t> size) const {
  std::optional<std::string> raw;
  std::string where;
  {
    std::lock_guard lock(state_->mutex);
    if (const auto at = state_->gathered_at.find(digest); at != state_->gathered_at.end()) {
      raw = state_->gathered[at->second].second;
      where = "not written yet";
    } else {
      load_locked();
      const auto it = state_->recorded.find(digest);
      if (it == state_->recorded.end()) return std::nullopt;
      const Recorded r = it->second;
      where = "object " + r.id.substr(0, 12) + " of " + r.pack;
      raw = read_entry(r);
      if (!raw) {
        // Admitted into git's objects by a commit's hook since.
        const auto repo_lock = repo_.lock();
        raw = repo_.read_object(r.id);
      }
    }
  }
  if (!raw) return std::nullopt;  // a pack gone (released and pruned): not here
  return decode_blob(*raw, digest, size, options_.max_blob_size, tracked_blob_path(digest) + " (" + where + ")");
}

bool PendingPacks::release(const std::string& name, std::time_t used_before) const {
  if (!is_pack_name(name)) return false;
  std::lock_guard lock(state_->mutex);
  if (used_before != std::numeric_limits<std::time_t>::max()) {
    struct stat st {};
    if (::stat((folder_ / (name + std::string(kUsedSuffix))).c_str(), &st) == 0 && st.st_mtime >= used_before)
      return false;  // a clean used it since it was judged
  }
  if (const auto pack_folder = pack_folder_locked()) {
    const fs::path keep = *pack_folder / (name + ".keep");
    if (::unlink(keep.c_str()) != 0 && errno != ENOENT)
      throw errno_error("cannot hand " + name + " back to git's gc: " + keep.string(), errno);
  }
  // Never admitted: git never saw it, and nothing needs it.
  for (const char* ext : {".idx", ".pack"}) ::unlink((folder_ / (name + ext)).c_str());
  ::unlink((folder_ / (name + std::string(kUsedSuffix))).c_str());
  const fs::path record = folder_ / (name + std::string(kRecordSuffix));
  if (::unlink(record.c_str()) != 0 && errno != ENOENT)
    throw errno_error("cannot remove the record of " + name + ": " + record.string(), errno);
  std::erase_if(state_->recorded, [&](const auto& kv) { return kv.second.pack == name; });
  state_->admitted.erase(name);
  JPBLOB_TRACE("pending packs: " + name + " handed back to git's gc");
  return true;
}

}  // namespace jpblob
