// The index read for its stat data (core/git/index_file.hpp): which
// work-tree files are, by git's own test, those the index was made from.
#include "core/git/index_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include "core/base/fs.hpp"
#include "core/git/index_format.hpp"
#include "core/git/object_hash.hpp"

namespace jpblob {

namespace fs = std::filesystem;
using namespace index_format;

std::optional<IndexSnapshot> read_index_snapshot(const fs::path& index, const std::string& object_format) {
  if (object_format != "sha1" && object_format != "sha256") return std::nullopt;
  const Fd fd(::open(index.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  struct stat st {};
  if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::optional<MappedFile> mapped;
  try {
    mapped.emplace(fd.get(), "the index " + index.string());
  } catch (const Error&) {
    return std::nullopt;
  }
  const std::string_view in = mapped->view();
  const auto parsed = parse(in, object_format);
  // A split or sparse index holds entries elsewhere, or folders for them.
  if (!parsed || !each_extension(in, *parsed, [](std::string_view, std::string_view) { return true; }))
    return std::nullopt;
  IndexSnapshot out;
  out.mtime_s = st.st_mtim.tv_sec;
  out.mtime_ns = st.st_mtim.tv_nsec;
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  constexpr std::uint16_t kAssumeValid = 0x8000;
  for (const Entry& e : parsed->entries) {
    if (e.stage() != 0) continue;
    const unsigned char* d = p + e.start;
    IndexedFile f;
    f.ctime_s = be32(d), f.ctime_ns = be32(d + 4), f.mtime_s = be32(d + 8), f.mtime_ns = be32(d + 12);
    f.dev = be32(d + 16), f.ino = be32(d + 20), f.mode = be32(d + 24), f.uid = be32(d + 28), f.gid = be32(d + 32);
    f.size = be32(d + 36);
    f.id = hex_object_id(std::string(in.data() + e.start + 40, parsed->hash_size));
    f.trusted = !(e.flags & kAssumeValid) && !(e.extended & kSkipWorktree);
    out.files.emplace(std::string(e.name), std::move(f));
  }
  return out;
}

bool unchanged_since_indexed(const IndexSnapshot& snapshot, const IndexedFile& e, const fs::path& file) {
  struct stat st {};
  if (!e.trusted || ::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  const auto low32 = [](auto v) { return static_cast<std::uint32_t>(v); };
  // git keeps the low 32 bits; nanoseconds only where it was built to.
  const auto same_time = [&](const timespec& t, std::uint32_t s, std::uint32_t ns) {
    return low32(t.tv_sec) == s && (ns == 0 || low32(t.tv_nsec) == ns);
  };
  if (!same_time(st.st_mtim, e.mtime_s, e.mtime_ns) || !same_time(st.st_ctim, e.ctime_s, e.ctime_ns) ||
      low32(st.st_ino) != e.ino || low32(st.st_size) != e.size || (st.st_mode & 0100) != (e.mode & 0100) ||
      (e.mode & 0170000) != 0100000)
    return false;
  // Racily clean: written in the index's second or after, a change of the
  // same size may not show in the stat data (git reads such a file again).
  const std::int64_t file_s = st.st_mtim.tv_sec;
  return file_s < snapshot.mtime_s || (file_s == snapshot.mtime_s && e.mtime_ns != 0 &&
                                       st.st_mtim.tv_nsec < snapshot.mtime_ns);
}

}  // namespace jpblob
