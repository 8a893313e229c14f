#include "core/git/index_format.hpp"

#include <algorithm>
#include <cstring>

#include "core/git/object_hash.hpp"

namespace jpblob::index_format {

std::string checksum(std::string_view bytes, const std::string& object_format) {
  ObjectHasher hash(object_format);
  hash.update(bytes);
  return hash.finish_raw();
}

std::optional<Parsed> parse(std::string_view in, const std::string& object_format) {
  Parsed out;
  out.hash_size = object_format == "sha256" ? 32 : 20;
  const std::size_t hash_size = out.hash_size;
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  if (in.size() < 12 + hash_size || std::memcmp(p, "DIRC", 4) != 0) return std::nullopt;
  const std::size_t body = out.body = in.size() - hash_size;
  // git 2.40's index.skipHash writes a null checksum; anything else must match.
  const std::string_view trailer(in.data() + body, hash_size);
  out.null_trailer = trailer.find_first_not_of('\0') == std::string_view::npos;
  if (!out.null_trailer && checksum(std::string_view(in.data(), body), object_format) != trailer) return std::nullopt;
  const std::uint32_t version = out.version = be32(p + 4), count = be32(p + 8);
  if (version < 2 || version > 4 || count > body / 62) return std::nullopt;
  const std::size_t fixed = 40 + hash_size;  // stat data and object id
  out.entries.reserve(count);
  if (version == 4) out.names.reserve(count);
  std::string_view previous;  // the entry before: version 4's names share a prefix with it
  int previous_stage = -1;
  std::size_t at = 12;
  for (std::uint32_t i = 0; i < count; ++i) {
    Entry e;
    e.start = at;
    if (at + fixed + 2 > body) return std::nullopt;
    e.flags = be16(p + at + fixed);
    at += fixed + 2;
    if (e.flags & kExtended) {
      if (version < 3 || at + 2 > body) return std::nullopt;
      e.extended = be16(p + at);
      at += 2;
    }
    e.name_at = at;
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
      std::string& name = out.names.emplace_back(previous.substr(0, previous.size() - strip));
      name.append(in.substr(at, end - at));
      e.name = name;
      at = end + 1;
    } else {
      const void* nul = std::memchr(p + at, 0, body - at);
      if (!nul) return std::nullopt;
      const std::size_t end = static_cast<const unsigned char*>(nul) - p;
      e.name = in.substr(at, end - at);
      // 1 to 8 NULs pad the entry to a multiple of eight bytes.
      at = e.start + ((end - e.start + 8) & ~std::size_t{7});
      if (at > body) return std::nullopt;
    }
    if ((e.flags & kNameMask) != std::min<std::size_t>(e.name.size(), kNameMask)) return std::nullopt;
    const int order = e.name.compare(previous);
    if (i > 0 && (order < 0 || (order == 0 && e.stage() <= previous_stage))) return std::nullopt;
    e.end = at;
    previous = e.name;
    previous_stage = e.stage();
    out.entries.push_back(e);
  }
  out.extensions = at;
  return out;
}

void append_end_of_entries(std::string& out, std::size_t entries_end, const std::string& object_format) {
  ObjectHasher hash(object_format);
  const auto* p = reinterpret_cast<const unsigned char*>(out.data());
  for (std::size_t at = entries_end; at + 8 <= out.size(); at += 8 + be32(p + at + 4))
    hash.update(std::string_view(out.data() + at, 8));
  const std::string digest = hash.finish_raw();
  out.append("EOIE");
  out.append(8, '\0');
  put_be32(out, out.size() - 8, static_cast<std::uint32_t>(4 + digest.size()));
  put_be32(out, out.size() - 4, static_cast<std::uint32_t>(entries_end));
  out += digest;
}

void finish(std::string& out, const Parsed& parsed, std::uint32_t version, const std::string& object_format) {
  put_be32(out, 4, version);
  if (parsed.null_trailer) {
    out.append(parsed.hash_size, '\0');
  } else {
    out += checksum(out, object_format);
  }
}

void append_varint(std::string& out, std::uint64_t value) {
  unsigned char bytes[16];
  std::size_t at = sizeof bytes - 1;
  bytes[at] = value & 127;
  while (value >>= 7) bytes[--at] = static_cast<unsigned char>(128 | (--value & 127));
  out.append(reinterpret_cast<const char*>(bytes + at), sizeof bytes - at);
}

}  // namespace jpblob::index_format
