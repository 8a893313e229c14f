#include "core/git/index_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/git/object_hash.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}
std::uint16_t be16(const unsigned char* p) { return static_cast<std::uint16_t>((p[0] << 8) | p[1]); }
void put_be32(std::string& s, std::size_t at, std::uint32_t v) {
  s[at] = static_cast<char>(v >> 24);
  s[at + 1] = static_cast<char>(v >> 16);
  s[at + 2] = static_cast<char>(v >> 8);
  s[at + 3] = static_cast<char>(v);
}
void append_be16(std::string& s, std::uint16_t v) {
  s.push_back(static_cast<char>(v >> 8));
  s.push_back(static_cast<char>(v));
}

// The checksum of an index's bytes, in the repository's object format.
std::string checksum(std::string_view bytes, const std::string& object_format) {
  ObjectHasher hash(object_format);
  hash.update(bytes);
  return hash.finish_raw();
}

// Reads a whole file through a descriptor; nullopt on any error.
std::optional<std::string> read_fd(int fd) {
  std::string out;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return std::nullopt;
    if (n == 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
  }
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// The rewritten index, or nullopt when anything is not as expected.
std::optional<std::string> rewrite(const std::string& in, const std::unordered_set<std::string>& paths,
                                   const std::string& object_format) {
  const std::size_t hash_size = object_format == "sha256" ? 32 : 20;
  constexpr std::uint16_t kExtended = 0x4000;       // flags: extended flags follow (version 3 and up)
  constexpr std::uint16_t kSkipWorktree = 0x4000;   // extended flags
  constexpr std::uint16_t kNameMask = 0x0fff;
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  if (in.size() < 12 + hash_size || std::memcmp(p, "DIRC", 4) != 0) return std::nullopt;
  const std::size_t body = in.size() - hash_size;
  // git 2.40's index.skipHash writes a null checksum; anything else must match.
  const std::string_view trailer(in.data() + body, hash_size);
  const bool null_trailer = trailer.find_first_not_of('\0') == std::string_view::npos;
  if (!null_trailer && checksum(std::string_view(in.data(), body), object_format) != trailer) return std::nullopt;
  const std::uint32_t version = be32(p + 4), count = be32(p + 8);
  if (version < 2 || version > 4) return std::nullopt;
  const std::size_t fixed = 40 + hash_size;  // stat data and object id
  std::string out(in.data(), 12);
  std::string previous;  // version 4: the name before, which the next one shares a prefix with
  bool marked = false;
  std::size_t at = 12;
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::size_t start = at;
    if (at + fixed + 2 > body) return std::nullopt;
    std::uint16_t flags = be16(p + at + fixed);
    at += fixed + 2;
    std::uint16_t extended = 0;
    const bool has_extended = flags & kExtended;
    if (has_extended) {
      if (version < 3 || at + 2 > body) return std::nullopt;
      extended = be16(p + at);
      at += 2;
    }
    std::string name;
    const std::size_t name_at = at;
    if (version == 4) {
      // A varint: how many bytes of the previous name to drop.
      std::uint64_t strip = 0;
      unsigned char c;
      do {
        if (at >= body) return std::nullopt;
        c = p[at++];
        strip = (strip << 7) | (c & 0x7f);
        if (c & 0x80) ++strip;
      } while (c & 0x80);
      const void* nul = std::memchr(p + at, 0, body - at);
      if (!nul || strip > previous.size()) return std::nullopt;
      const std::size_t end = static_cast<const unsigned char*>(nul) - p;
      name = previous.substr(0, previous.size() - strip) + in.substr(at, end - at);
      at = end + 1;
    } else {
      const void* nul = std::memchr(p + at, 0, body - at);
      if (!nul) return std::nullopt;
      const std::size_t end = static_cast<const unsigned char*>(nul) - p;
      name = in.substr(at, end - at);
      // 1 to 8 NULs pad the entry to a multiple of eight bytes.
      at = start + ((end - start + 8) & ~std::size_t{7});
      if (at > body) return std::nullopt;
    }
    if ((flags & kNameMask) != std::min<std::size_t>(name.size(), kNameMask)) return std::nullopt;
    const int stage = (flags >> 12) & 3;
    const bool mark = stage == 0 && paths.count(name) && !(extended & kSkipWorktree);
    if (!mark) {
      out.append(in, start, at - start);
    } else {
      marked = true;
      out.append(in, start, fixed);
      append_be16(out, static_cast<std::uint16_t>(flags | kExtended));
      append_be16(out, static_cast<std::uint16_t>(extended | kSkipWorktree));
      if (version == 4) {
        out.append(in, name_at, at - name_at);
      } else {
        // The same name, padded for the entry's new length.
        const std::size_t length = fixed + 4 + name.size();
        out += name;
        out.append(((length + 8) & ~std::size_t{7}) - length, '\0');
      }
    }
    previous = std::move(name);
  }
  // Extensions: each a signature, a length and its data.
  while (at < body) {
    if (at + 8 > body) return std::nullopt;
    const std::string_view sig(in.data() + at, 4);
    const std::size_t size = be32(p + at + 4);
    if (size > body - at - 8) return std::nullopt;
    // A lower-case signature is required: git refuses what it does not
    // know, and so does this (a split index's link, a sparse index's sdir).
    if (sig[0] < 'A' || sig[0] > 'Z') return std::nullopt;
    // Offsets into the file, which moved: optional, left out.
    if (sig != "EOIE" && sig != "IEOT") out.append(in, at, 8 + size);
    at += 8 + size;
  }
  if (!marked) return std::string();  // nothing to change
  if (version < 3) put_be32(out, 4, 3);
  if (null_trailer) {
    out.append(hash_size, '\0');
  } else {
    out += checksum(out, object_format);
  }
  return out;
}

}  // namespace

bool mark_skip_worktree_in_place(const fs::path& index, const std::unordered_set<std::string>& paths,
                                 const std::string& object_format) {
  if ((object_format != "sha1" && object_format != "sha256") || paths.empty()) return false;
  const fs::path lock_path = index.string() + ".lock";
  // git's lock: whoever creates it owns the index until it renames it.
  const int lock = ::open(lock_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (lock < 0) return false;
  // From here the lock is ours until it is renamed over the index; once
  // renamed, the name may already be another git's lock: never touched again.
  const int fd = ::open(index.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  struct stat st {};
  std::optional<std::string> out;
  if (fd >= 0 && ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    const auto in = read_fd(fd);
    if (in) out = rewrite(*in, paths, object_format);
  }
  if (fd >= 0) ::close(fd);
  // The file's own times stay: git compares each entry's mtime with the
  // index's to know which ones it must check by content.
  const struct timespec times[2] = {st.st_atim, st.st_mtim};
  bool written = out && !out->empty() && write_all(lock, *out) && ::fchmod(lock, st.st_mode & 07777) == 0 &&
                 ::futimens(lock, times) == 0;
  if (::close(lock) != 0) written = false;
  const bool renamed = written && ::rename(lock_path.c_str(), index.c_str()) == 0;
  if (!renamed) {
    std::error_code ec;
    fs::remove(lock_path, ec);
  }
  const bool unchanged = out && out->empty();  // every entry was marked already
  return renamed || unchanged;
}

}  // namespace jpblob
