#include "core/git/index_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
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
// thread of their own while it reads the entries (docs/ARCHITECTURE.md,
// "The index on two threads"). `out` holds the entries up to
// `entries_end`, then the extensions.
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
void finish(std::string& out, const Parsed& parsed, std::uint32_t version, const std::string& object_format) {
  put_be32(out, 4, version);
  if (parsed.null_trailer) {
    out.append(parsed.hash_size, '\0');
  } else {
    out += checksum(out, object_format);
  }
}

// The index with `paths` marked, or nullopt when anything is not as
// expected; empty when nothing changes.
std::optional<std::string> rewrite(std::string_view in, const std::unordered_set<std::string>& paths,
                                   const std::string& object_format, bool end_of_entries) {
  const auto parsed = parse(in, object_format);
  if (!parsed) return std::nullopt;
  const std::size_t fixed = 40 + parsed->hash_size;
  const std::unordered_set<std::string_view> marking(paths.begin(), paths.end());
  std::string out(in.data(), 12);
  out.reserve(in.size() + 8 * paths.size());  // an entry grows by its extended flags, at most 8 bytes
  bool marked = false;
  for (const Entry& e : parsed->entries) {
    const bool mark = e.stage() == 0 && !(e.extended & kSkipWorktree) && marking.count(e.name);
    if (!mark) {
      out.append(in, e.start, e.end - e.start);
      continue;
    }
    marked = true;
    out.append(in, e.start, fixed);
    append_be16(out, static_cast<std::uint16_t>(e.flags | kExtended));
    append_be16(out, static_cast<std::uint16_t>(e.extended | kSkipWorktree));
    if (parsed->version == 4) {
      out.append(in, e.name_at, e.end - e.name_at);
    } else {
      // The same name, padded for the entry's new length.
      const std::size_t length = fixed + 4 + e.name.size();
      out.append(e.name);
      out.append(((length + 8) & ~std::size_t{7}) - length, '\0');
    }
  }
  if (!append_extensions(out, in, *parsed, object_format, end_of_entries, [&](std::string_view, std::string_view whole) {
        out.append(whole);
        return true;
      }))
    return std::nullopt;
  if (!marked) return std::string();  // nothing to change
  finish(out, *parsed, std::max<std::uint32_t>(parsed->version, 3), object_format);
  return out;
}

// git's varint of version 4 names (the bytes of the previous name to drop).
void append_varint(std::string& out, std::uint64_t value) {
  unsigned char bytes[16];
  std::size_t at = sizeof bytes - 1;
  bytes[at] = value & 127;
  while (value >>= 7) bytes[--at] = static_cast<unsigned char>(128 | (--value & 127));
  out.append(reinterpret_cast<const char*>(bytes + at), sizeof bytes - at);
}

// The cache tree (TREE) with every folder in `touched` (paths without a
// trailing slash, "" the top) made invalid, as git does when an entry
// below it changes: git writes those trees again at the next commit, and
// keeps every other. nullopt when it does not parse.
std::optional<std::string> invalidate_trees(std::string_view data, const std::unordered_set<std::string>& touched,
                                            std::size_t hash_size) {
  std::string out;
  std::size_t at = 0;
  // Pre-order: a folder, then its subtrees. Each: name NUL, entry count
  // (-1: invalid) SP, subtree count LF, then the id when valid.
  struct Frame {
    std::string path;
    std::uint64_t left;
  };
  std::vector<Frame> stack;
  bool first = true;
  while (first || !stack.empty()) {
    if (!first && stack.back().left == 0) {
      stack.pop_back();
      continue;
    }
    const std::size_t nul = data.find('\0', at);
    if (nul == std::string_view::npos) return std::nullopt;
    const std::string_view name = data.substr(at, nul - at);
    const std::size_t space = data.find(' ', nul + 1), line = data.find('\n', nul + 1);
    if (space == std::string_view::npos || line == std::string_view::npos || space > line) return std::nullopt;
    const std::string count(data.substr(nul + 1, space - nul - 1)), subtrees(data.substr(space + 1, line - space - 1));
    if (count.empty() || subtrees.empty() || subtrees.find_first_not_of("0123456789") != std::string::npos ||
        (count != "-1" && count.find_first_not_of("0123456789") != std::string::npos) || subtrees.size() > 9)
      return std::nullopt;
    at = line + 1;
    const bool valid = count != "-1";
    if (valid) {
      if (at + hash_size > data.size()) return std::nullopt;
      at += hash_size;
    }
    std::string path;
    if (first) {
      if (!name.empty()) return std::nullopt;
    } else {
      --stack.back().left;
      path = stack.back().path.empty() ? std::string(name) : stack.back().path + "/" + std::string(name);
    }
    first = false;
    out.append(name).push_back('\0');
    if (valid && !touched.count(path)) {
      out.append(data.substr(nul + 1, at - nul - 1));
    } else {
      out.append("-1 ").append(subtrees).push_back('\n');
    }
    stack.push_back({std::move(path), std::stoull(subtrees)});
  }
  if (at != data.size()) return std::nullopt;
  return out;
}

// The index with `adding` (sorted by path, no path twice) in it, each
// entry as `git update-index --index-info` makes one (no stat data) with
// the skip-worktree bit, or nullopt when anything is not as expected or
// git would refuse: a path in conflict, one that is a file where another
// is a folder.
std::optional<std::string> insert(std::string_view in, const std::vector<NewIndexEntry>& adding,
                                  const std::string& object_format) {
  auto parsed = parse(in, object_format);
  if (!parsed) return std::nullopt;
  const std::size_t hash_size = parsed->hash_size, fixed = 40 + hash_size;
  const std::uint32_t version = std::max<std::uint32_t>(parsed->version, 3);
  const std::vector<Entry>& entries = parsed->entries;
  // The first entry not before `name` (parse checked git's order): what
  // the index holds at or below a path is found without reading every
  // entry (a commit of one conversation beside 100,000 blobs).
  const auto from = [&](std::string_view name) {
    return std::partition_point(entries.begin(), entries.end(), [&](const Entry& e) { return e.name < name; });
  };
  // Every folder above a new entry: none may be an entry itself, and its
  // tree must be written again.
  std::unordered_set<std::string> folders = {""};
  for (const NewIndexEntry& n : adding) {
    if (n.path.empty() || n.id.size() != hash_size) return std::nullopt;
    for (std::size_t slash = n.path.rfind('/'); slash != std::string::npos && slash > 0;
         slash = n.path.rfind('/', slash - 1))
      if (!folders.insert(n.path.substr(0, slash)).second) break;
    // At its path, only a stage-0 entry, which it replaces (any other is
    // a conflict); below it, nothing (a file cannot hold a folder).
    for (auto e = from(n.path); e != entries.end() && e->name == n.path; ++e)
      if (e->stage() != 0) return std::nullopt;
    const std::string below = n.path + "/";
    if (const auto e = from(below); e != entries.end() && e->name.starts_with(below))
      throw IndexEntryInTheWay::at(n.path, std::string(e->name), true);
  }
  for (const std::string& folder : folders) {  // a file where a folder goes
    if (folder.empty()) continue;
    if (const auto e = from(folder); e != entries.end() && e->name == folder)
      throw IndexEntryInTheWay::at(folder, folder, false);
  }
  std::string out(in.data(), 12);
  std::size_t growth = 0;
  for (const NewIndexEntry& n : adding) growth += fixed + 4 + n.path.size() + 8;
  out.reserve(in.size() + growth);
  std::string previous;
  std::uint32_t count = 0;
  // The name of an entry whose header is written, `extended` when it has
  // the extended flags: in versions 2 and 3, padded to eight bytes.
  const auto name = [&](std::string_view path, bool extended) {
    if (version == 4) {
      std::size_t same = 0;
      while (same < previous.size() && same < path.size() && previous[same] == path[same]) ++same;
      append_varint(out, previous.size() - same);
      out.append(path.substr(same)).push_back('\0');
    } else {
      const std::size_t length = fixed + (extended ? 4 : 2) + path.size();
      out.append(path);
      out.append(((length + 8) & ~std::size_t{7}) - length, '\0');
    }
    previous.assign(path);
    ++count;
  };
  const auto add = [&](const NewIndexEntry& n) {
    std::string stat(40, '\0');
    put_be32(stat, 24, n.mode);
    out += stat;
    out += n.id;
    append_be16(out, static_cast<std::uint16_t>(kExtended | std::min<std::size_t>(n.path.size(), kNameMask)));
    append_be16(out, kSkipWorktree);
    name(n.path, true);
  };
  const auto keep = [&](const Entry& e) {
    out.append(in, e.start, fixed);
    const bool extended = e.flags & kExtended;
    append_be16(out, e.flags);
    if (extended) append_be16(out, e.extended);
    if (version == 4) {
      name(e.name, extended);  // the name before it may be another now
    } else {
      out.append(in, e.name_at, e.end - e.name_at);  // versions 2 and 3 pad alike
      ++count;
    }
  };
  auto next = adding.begin();
  for (const Entry& e : parsed->entries) {
    // git's order: by name, then stage; a new entry takes a stage-0 one's place.
    for (; next != adding.end() && next->path < e.name; ++next) add(*next);
    if (next != adding.end() && next->path == e.name) continue;  // replaced (stage 0, checked above)
    keep(e);
  }
  for (; next != adding.end(); ++next) add(*next);
  // The cache tree loses the folders that changed; what holds positions
  // (the fsmonitor's bitmap) or untracked files (the untracked cache),
  // which the new entries may have become, is optional and left out for
  // git to make again.
  bool ok = append_extensions(out, in, *parsed, object_format, false, [&](std::string_view sig, std::string_view whole) {
    if (sig == "FSMN" || sig == "UNTR") return true;
    if (sig != "TREE") {
      out.append(whole);
      return true;
    }
    const auto tree = invalidate_trees(whole.substr(8), folders, hash_size);
    if (!tree) return false;
    out.append("TREE");
    out.append(4, '\0');
    put_be32(out, out.size() - 4, static_cast<std::uint32_t>(tree->size()));
    out += *tree;
    return true;
  });
  if (!ok) return std::nullopt;
  put_be32(out, 8, count);
  finish(out, *parsed, version, object_format);
  return out;
}

// Writes `change(index bytes)` over `index` under git's lock, keeping the
// file's mode and times. True when written, or when `change` gives an
// empty string (nothing to change); false, with nothing changed, when
// it gives nullopt or anything fails.
}  // namespace

IndexEntryInTheWay IndexEntryInTheWay::at(const std::string& path, const std::string& entry, bool below) {
  const std::string fix = "Move it away (`git mv " + entry + " <another name>`, or `git rm --cached` for a submodule), "
                          "then commit again";
  if (below)
    return IndexEntryInTheWay("cannot stage " + path + ": the index holds " + entry + " below it, where the blob is a "
                              "file. Nothing was staged. " + fix);
  return IndexEntryInTheWay("cannot stage blobs below " + entry + ": the index holds " + entry +
                            " as a file, where they go in a folder. Nothing was staged. " + fix);
}

namespace {

template <typename Change>
bool edit_in_place(const fs::path& index, Change change) {
  const fs::path lock_path = index.string() + ".lock";
  // git's lock: whoever creates it owns the index until it renames it.
  const int lock = ::open(lock_path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (lock < 0) return false;
  // From here the lock is ours until it is renamed over the index; once
  // renamed, the name may already be another git's lock: never touched again.
  struct stat st {};
  std::optional<std::string> out;
  {
    const Fd fd(::open(index.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));  // a FIFO never blocks
    if (fd.valid() && ::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode)) {
      try {
        const MappedFile in(fd.get(), index.string());  // git renames a new index over it: never rewritten
        out = change(in.view());
      } catch (const IndexEntryInTheWay&) {
        ::close(lock);
        std::error_code ec;
        fs::remove(lock_path, ec);
        throw;  // refused: git would not refuse it
      } catch (const Error&) {
        out.reset();  // unreadable: git does it
      }
    }
  }
  // The file's own times stay: git compares each entry's mtime with the
  // index's to know which ones it must check by content.
  const struct timespec times[2] = {st.st_atim, st.st_mtim};
  const auto wrote = [&] {
    try {
      write_all(lock, *out, index.string() + ".lock");
      return true;
    } catch (const Error&) {
      return false;
    }
  };
  bool written = out && !out->empty() && wrote() && ::fchmod(lock, st.st_mode & 07777) == 0 &&
                 ::futimens(lock, times) == 0;
  if (::close(lock) != 0) written = false;
  const bool renamed = written && ::rename(lock_path.c_str(), index.c_str()) == 0;
  if (!renamed) {
    std::error_code ec;
    fs::remove(lock_path, ec);
  }
  const bool unchanged = out && out->empty();
  return renamed || unchanged;
}

}  // namespace

bool mark_skip_worktree_in_place(const fs::path& index, const std::unordered_set<std::string>& paths,
                                 const std::string& object_format, bool end_of_entries) {
  if ((object_format != "sha1" && object_format != "sha256") || paths.empty()) return false;
  return edit_in_place(index,
                       [&](std::string_view in) { return rewrite(in, paths, object_format, end_of_entries); });
}

bool add_entries_in_place(const fs::path& index, std::vector<NewIndexEntry> entries,
                          const std::string& object_format) {
  if ((object_format != "sha1" && object_format != "sha256") || entries.empty()) return false;
  std::sort(entries.begin(), entries.end(),
            [](const NewIndexEntry& a, const NewIndexEntry& b) { return a.path < b.path; });
  for (std::size_t i = 1; i < entries.size(); ++i)
    if (entries[i].path == entries[i - 1].path) return false;
  return edit_in_place(index, [&](std::string_view in) { return insert(in, entries, object_format); });
}

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
