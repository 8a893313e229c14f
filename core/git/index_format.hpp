// The git index file's format, for the files that read and edit it in
// place (core/git/index_file.hpp): its entries parsed where they lie, its
// extensions walked, and the pieces a writer of a new index needs (the
// end of the entries, the checksum, version 4's names). Only core/git uses
// it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jpblob::index_format {

inline std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}
inline std::uint16_t be16(const unsigned char* p) { return static_cast<std::uint16_t>((p[0] << 8) | p[1]); }
inline void put_be32(std::string& s, std::size_t at, std::uint32_t v) {
  s[at] = static_cast<char>(v >> 24);
  s[at + 1] = static_cast<char>(v >> 16);
  s[at + 2] = static_cast<char>(v >> 8);
  s[at + 3] = static_cast<char>(v);
}
inline void append_be16(std::string& s, std::uint16_t v) {
  s.push_back(static_cast<char>(v >> 8));
  s.push_back(static_cast<char>(v));
}

// The checksum of an index's bytes, in the repository's object format.
std::string checksum(std::string_view bytes, const std::string& object_format);

constexpr std::uint16_t kExtended = 0x4000;      // flags: extended flags follow (version 3 and up)
constexpr std::uint16_t kSkipWorktree = 0x4000;  // extended flags
constexpr std::uint16_t kNameMask = 0x0fff;

// One entry as the file holds it: where its bytes are, and what they say.
struct Entry {
  std::size_t start = 0, end = 0;  // its bytes in the file
  std::size_t name_at = 0;         // where its name (version 4: the varint) starts
  std::uint16_t flags = 0, extended = 0;
  std::string_view name;  // in the file's bytes, or (version 4) in Parsed::names
  int stage() const { return (flags >> 12) & 3; }
};

struct Parsed {
  std::uint32_t version = 0;
  std::size_t hash_size = 0;
  std::vector<Entry> entries;
  // Version 4's names, which the file holds only as prefixes of the one
  // before: reserved for every entry up front, so that no name moves.
  std::vector<std::string> names;
  std::size_t extensions = 0, body = 0;  // where the extensions start, and the checksum
  bool null_trailer = false;
};

// The index's entries, or nullopt when anything is not as expected, the
// order included (by name, then stage, as git sorts them): readers
// look entries up by that order.
std::optional<Parsed> parse(std::string_view in, const std::string& object_format);

// The extensions after the entries, each a signature, a length and its
// data, given to `keep`, which appends what stays to `out`; false when one
// is required and unknown to git-jpblob (a lower-case signature: git
// refuses what it does not know, and so does this: a split index's link, a
// sparse index's sdir) or the bytes do not parse.
template <typename Keep>
bool each_extension(std::string_view in, const Parsed& parsed, Keep keep) {
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  for (std::size_t at = parsed.extensions; at < parsed.body;) {
    if (at + 8 > parsed.body) return false;
    const std::string_view sig(in.data() + at, 4);
    const std::size_t size = be32(p + at + 4);
    if (size > parsed.body - at - 8) return false;
    if (sig[0] < 'A' || sig[0] > 'Z') return false;
    if (!keep(sig, std::string_view(in.data() + at, 8 + size))) return false;
    at += 8 + size;
  }
  return true;
}

// git's end of index entries (EOIE), written last, where git looks for it:
// the offset where the extensions start, and a hash of each extension's
// signature and size. With it, git reads the extensions (the cache tree of
// a lean clone's 65,000 store folders: half of reading its index) on a
// thread of their own while it reads the entries (docs/lean.md,
// "The index on two threads"). `out` holds the entries up to
// `entries_end`, then the extensions.
void append_end_of_entries(std::string& out, std::size_t entries_end, const std::string& object_format);

// The extensions after the entries just written to `out`: those `keep`
// appends, then the end of the entries (EOIE) where the index had one or
// `end_of_entries` asks. What holds offsets into the file, which moved, is
// never given to `keep`: EOIE is written again, the offsets of blocks of
// entries (IEOT) left for git to write. False where each_extension is.
template <typename Keep>
bool append_extensions(std::string& out, std::string_view in, const Parsed& parsed, const std::string& object_format,
                       bool end_of_entries, Keep keep) {
  const std::size_t entries_end = out.size();
  const bool ok = each_extension(in, parsed, [&](std::string_view sig, std::string_view whole) {
    end_of_entries |= sig == "EOIE";
    return sig == "EOIE" || sig == "IEOT" || keep(sig, whole);
  });
  if (ok && end_of_entries) append_end_of_entries(out, entries_end, object_format);
  return ok;
}

// The file's end: its checksum (null where git wrote none), after the
// version that extended flags need.
void finish(std::string& out, const Parsed& parsed, std::uint32_t version, const std::string& object_format);

// git's varint of version 4 names (the bytes of the previous name to drop).
void append_varint(std::string& out, std::uint64_t value);

}  // namespace jpblob::index_format
