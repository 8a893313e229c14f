// The index edited in place (core/git/index_file.hpp): the skip-worktree
// bit set, and many entries added in one pass, under git's lock. The
// format itself is read and written by core/git/index_format; the stat data
// read by index_snapshot.cpp.
#include "core/git/index_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/git/index_format.hpp"

namespace jpblob {

namespace fs = std::filesystem;
using namespace index_format;

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

// Every folder above a new entry of `adding`, "" the top: none may be an
// entry itself, and its tree must be written again. nullopt where git
// would refuse an entry (an empty path, an id of another length, a path in
// conflict); throws IndexEntryInTheWay where git would replace an entry.
std::optional<std::unordered_set<std::string>> folders_of_new_entries(const Parsed& parsed,
                                                                     const std::vector<NewIndexEntry>& adding) {
  const std::vector<Entry>& entries = parsed.entries;
  // The first entry not before `name` (parse checked git's order): what
  // the index holds at or below a path is found without reading every
  // entry (a commit of one conversation beside 100,000 blobs).
  const auto from = [&](std::string_view name) {
    return std::partition_point(entries.begin(), entries.end(), [&](const Entry& e) { return e.name < name; });
  };
  std::unordered_set<std::string> folders = {""};
  for (const NewIndexEntry& n : adding) {
    if (n.path.empty() || n.id.size() != parsed.hash_size) return std::nullopt;
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
  return folders;
}

// Writes the entries of a new index of `version` to `out` after its
// header, counting them: those the index `in` holds, as it holds them, and
// new ones as `git update-index --index-info` makes them. Version 4 writes
// each name against the one before, which may be another now.
class EntryWriter {
 public:
  EntryWriter(std::string& out, std::string_view in, std::uint32_t version, std::size_t hash_size)
      : out_(out), in_(in), version_(version), fixed_(40 + hash_size) {}

  // A new entry: no stat data, its mode and id, the skip-worktree bit.
  void add(const NewIndexEntry& n) {
    std::string stat(40, '\0');
    put_be32(stat, 24, n.mode);
    out_ += stat;
    out_ += n.id;
    append_be16(out_, static_cast<std::uint16_t>(kExtended | std::min<std::size_t>(n.path.size(), kNameMask)));
    append_be16(out_, kSkipWorktree);
    name(n.path, true);
  }

  // An entry the index holds.
  void keep(const Entry& e) {
    out_.append(in_, e.start, fixed_);
    const bool extended = e.flags & kExtended;
    append_be16(out_, e.flags);
    if (extended) append_be16(out_, e.extended);
    if (version_ == 4) {
      name(e.name, extended);  // the name before it may be another now
    } else {
      out_.append(in_, e.name_at, e.end - e.name_at);  // versions 2 and 3 pad alike
      ++count_;
    }
  }

  std::uint32_t count() const { return count_; }

 private:
  // The name of an entry whose header is written, `extended` when it has
  // the extended flags: in versions 2 and 3, padded to eight bytes.
  void name(std::string_view path, bool extended) {
    if (version_ == 4) {
      std::size_t same = 0;
      while (same < previous_.size() && same < path.size() && previous_[same] == path[same]) ++same;
      append_varint(out_, previous_.size() - same);
      out_.append(path.substr(same)).push_back('\0');
    } else {
      const std::size_t length = fixed_ + (extended ? 4 : 2) + path.size();
      out_.append(path);
      out_.append(((length + 8) & ~std::size_t{7}) - length, '\0');
    }
    previous_.assign(path);
    ++count_;
  }

  std::string& out_;
  std::string_view in_;
  std::uint32_t version_;
  std::size_t fixed_;
  std::string previous_;
  std::uint32_t count_ = 0;
};

// The extensions of `in` after the entries written to `out`, for new
// entries below `folders`. The cache tree loses the folders that changed;
// what holds positions (the fsmonitor's bitmap) or untracked files (the
// untracked cache), which the new entries may have become, is optional and
// left out for git to make again. False where append_extensions is, or
// where the cache tree does not parse.
bool append_extensions_for_new_entries(std::string& out, std::string_view in, const Parsed& parsed,
                                       const std::unordered_set<std::string>& folders,
                                       const std::string& object_format) {
  return append_extensions(out, in, parsed, object_format, false, [&](std::string_view sig, std::string_view whole) {
    if (sig == "FSMN" || sig == "UNTR") return true;
    if (sig != "TREE") {
      out.append(whole);
      return true;
    }
    const auto tree = invalidate_trees(whole.substr(8), folders, parsed.hash_size);
    if (!tree) return false;
    out.append("TREE");
    out.append(4, '\0');
    put_be32(out, out.size() - 4, static_cast<std::uint32_t>(tree->size()));
    out += *tree;
    return true;
  });
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
  const auto folders = folders_of_new_entries(*parsed, adding);
  if (!folders) return std::nullopt;
  const std::size_t fixed = 40 + parsed->hash_size;
  const std::uint32_t version = std::max<std::uint32_t>(parsed->version, 3);
  std::string out(in.data(), 12);
  std::size_t growth = 0;
  for (const NewIndexEntry& n : adding) growth += fixed + 4 + n.path.size() + 8;
  out.reserve(in.size() + growth);
  EntryWriter writer(out, in, version, parsed->hash_size);
  auto next = adding.begin();
  for (const Entry& e : parsed->entries) {
    // git's order: by name, then stage; a new entry takes a stage-0 one's place.
    for (; next != adding.end() && next->path < e.name; ++next) writer.add(*next);
    if (next != adding.end() && next->path == e.name) continue;  // replaced (stage 0, checked above)
    writer.keep(e);
  }
  for (; next != adding.end(); ++next) writer.add(*next);
  if (!append_extensions_for_new_entries(out, in, *parsed, *folders, object_format)) return std::nullopt;
  put_be32(out, 8, writer.count());
  finish(out, *parsed, version, object_format);
  return out;
}

// Writes `change(index bytes)` over `index` under git's lock, keeping the
// file's mode and times. True when written, or when `change` gives an
// empty string (nothing to change); false, with nothing changed, when
// it gives nullopt or anything fails.
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

}  // namespace jpblob
