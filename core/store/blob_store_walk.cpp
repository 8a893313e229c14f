// The store's listing, deletion, verification and prefix lookup: the part
// of the sealed store that gc, verify, stats and `cat` ask.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <map>

#include "core/store/blob_store.hpp"
#include "core/base/error.hpp"
#include "core/base/parallel.hpp"
#include "core/format/gzip.hpp"

namespace jpblob {

namespace {

bool is_hex_name(std::string_view name, std::size_t len) {
  if (name.size() != len) return false;
  for (char c : name)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

constexpr std::string_view kSuffix = ".blob.gz";

// The kind of a file named `name` in the leaf folder `a/b` (both empty in
// a flat store).
StoreEntry::Kind classify(const std::string& a, const std::string& b, const std::string& name,
                          std::optional<Digest>& digest) {
  if (name.starts_with(AtomicFile::kTempPrefix)) return StoreEntry::Kind::Temporary;
  if (name.size() == 64 + kSuffix.size() && name.ends_with(kSuffix) && is_hex_name(name.substr(0, 64), 64) &&
      name.compare(0, a.size(), a) == 0 && name.compare(a.size(), b.size(), b) == 0) {
    digest = Digest::from_hex(name.substr(0, 64));
    return StoreEntry::Kind::Blob;
  }
  return StoreEntry::Kind::Foreign;
}

StoreEntry foreign(const std::string& relative, const struct stat& st) {
  StoreEntry e{StoreEntry::Kind::Foreign, relative, std::nullopt, static_cast<std::uint64_t>(st.st_size),
               st.st_mtim.tv_sec, S_ISLNK(st.st_mode), st.st_dev, st.st_ino};
  return e;
}

// Each name in `dir` with its lstat, "." and ".." left out.
template <typename Fn>
void each_name(int dir, const std::string& what, Fn&& fn) {
  for (const std::string& name : folder_names(dir, what)) {
    struct stat st {};
    if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      if (errno == ENOENT) continue;  // removed meanwhile
      throw errno_error("cannot read " + what + "/" + name, errno);
    }
    fn(name, st);
  }
}

Fd open_child(int dir, const std::string& name) {
  return Fd(::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

}  // namespace

namespace {

// The entries of a leaf folder `ab` ("aa/bb", or "" for a flat store's
// root): each stat-ed, or with `by_name` listed by its name alone (size,
// mtime and identity 0; anything named like a blob is a Blob).
void each_leaf_entry(int leaf, const std::string& where, const std::string& ab, bool by_name,
                     const std::function<void(const StoreEntry&)>& fn) {
  const std::string a = ab.substr(0, 2), b = ab.size() > 3 ? ab.substr(3) : "";
  const std::string folder = ab.empty() ? where : where + "/" + ab;
  auto entry = [&](const std::string& name, const struct stat& st) {
    const std::string relative = ab.empty() ? name : ab + "/" + name;
    if (!by_name && !S_ISREG(st.st_mode)) return fn(foreign(relative, st));
    StoreEntry e{StoreEntry::Kind::Foreign, relative, std::nullopt, static_cast<std::uint64_t>(st.st_size),
                 st.st_mtim.tv_sec, false, st.st_dev, st.st_ino};
    e.kind = classify(a, b, name, e.digest);
    fn(e);
  };
  if (!by_name) return each_name(leaf, folder, entry);
  for (const std::string& name : folder_names(leaf, folder)) entry(name, {});
}

}  // namespace

void BlobStore::walk(bool by_name, const std::function<void(const StoreEntry&)>& fn) const {
  const int root = root_fd(false);
  if (root < 0) return;
  const std::string where = root_.string();
  if (layout_ == StoreLayout::Flat) return each_leaf_entry(root, where, "", by_name, fn);
  // The folders are stat-ed either way; by name, what is not one is listed
  // as it would be in a leaf, with nothing of its stat.
  const struct stat none {};
  auto other = [&](const std::string& relative, const struct stat& st) { fn(foreign(relative, by_name ? none : st)); };
  each_name(root, where, [&](const std::string& a, const struct stat& st_a) {
    if (!is_hex_name(a, 2) || !S_ISDIR(st_a.st_mode)) return other(a, st_a);
    Fd level1 = open_child(root, a);
    if (!level1.valid()) {
      if (errno == ENOENT) return;
      throw errno_error("cannot open " + where + "/" + a, errno);
    }
    each_name(level1.get(), where + "/" + a, [&](const std::string& b, const struct stat& st_b) {
      const std::string ab = a + "/" + b;
      if (!is_hex_name(b, 2) || !S_ISDIR(st_b.st_mode)) return other(ab, st_b);
      Fd leaf = open_child(level1.get(), b);
      if (!leaf.valid()) {
        if (errno == ENOENT) return;
        throw errno_error("cannot open " + where + "/" + ab, errno);
      }
      each_leaf_entry(leaf.get(), where, ab, by_name, fn);
    });
  });
}

void BlobStore::for_each_entry(const std::function<void(const StoreEntry&)>& fn) const { walk(false, fn); }

std::vector<StoreEntry> BlobStore::entries() const {
  std::vector<StoreEntry> out;
  for_each_entry([&](const StoreEntry& e) { out.push_back(e); });
  return out;
}

std::vector<StoreEntry> BlobStore::entries_by_name() const {
  std::vector<StoreEntry> out;
  walk(true, [&](const StoreEntry& e) { out.push_back(e); });
  return out;
}

std::optional<StoreEntry> BlobStore::stat(const StoreEntry& named) const {
  const std::size_t slash = named.relative.rfind('/');
  Fd leaf = open_folder(slash == std::string::npos ? "" : named.relative.substr(0, slash));
  struct stat st {};
  if (!leaf.valid() || ::fstatat(leaf.get(), named.relative.substr(slash + 1).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    return std::nullopt;
  if (!S_ISREG(st.st_mode)) return foreign(named.relative, st);
  StoreEntry e = named;
  e.size = static_cast<std::uint64_t>(st.st_size);
  e.mtime = st.st_mtim.tv_sec;
  e.device = st.st_dev;
  e.inode = st.st_ino;
  return e;
}

Removal BlobStore::remove_from(int leaf, const StoreEntry& entry, std::time_t not_newer_than) const {
  if (entry.kind == StoreEntry::Kind::Foreign)
    throw Error("refusing to delete " + (root_ / entry.relative).string() + ": it is not a blob");
  const std::string name = entry.relative.substr(entry.relative.rfind('/') + 1);  // npos + 1 == 0
  if (leaf < 0) return Removal::Gone;
  struct stat st {};
  if (::fstatat(leaf, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return Removal::Gone;
    throw errno_error("cannot read " + (root_ / entry.relative).string(), errno);
  }
  if (!S_ISREG(st.st_mode))
    throw Error("refusing to delete " + (root_ / entry.relative).string() + ": it is not a regular file");
  if (st.st_mtim.tv_sec > not_newer_than) return Removal::Fresh;
  if (::unlinkat(leaf, name.c_str(), 0) != 0) {
    if (errno == ENOENT) return Removal::Gone;
    throw errno_error("cannot delete " + (root_ / entry.relative).string(), errno);
  }
  return Removal::Removed;
}

namespace {
// The folder of a store entry below the root: "aa/bb", or "" in a flat store.
std::string folder_of(const StoreEntry& entry) {
  const std::size_t slash = entry.relative.rfind('/');
  return slash == std::string::npos ? "" : entry.relative.substr(0, slash);
}
}  // namespace

// The folders a removal leaves empty go too. A writer that has just opened
// one creates it again (start_file); a folder that is not empty stays.
bool BlobStore::remove_leaf_if_empty(const std::string& leaf_path) const {
  if (leaf_path.empty()) return false;  // a flat store keeps its root
  Fd level1 = open_folder(leaf_path.substr(0, 2));
  return level1.valid() && ::unlinkat(level1.get(), leaf_path.substr(3).c_str(), AT_REMOVEDIR) == 0;
}

void BlobStore::remove_level1_if_empty(const std::string& leaf_path) const {
  ::unlinkat(root_fd(false), leaf_path.substr(0, 2).c_str(), AT_REMOVEDIR);
}

Removal BlobStore::remove(const StoreEntry& entry, std::time_t not_newer_than) const {
  const std::string leaf_path = folder_of(entry);
  Fd leaf = entry.kind == StoreEntry::Kind::Foreign ? Fd() : open_folder(leaf_path);
  const Removal removal = remove_from(leaf.get(), entry, not_newer_than);
  if (removal == Removal::Removed && remove_leaf_if_empty(leaf_path)) remove_level1_if_empty(leaf_path);
  return removal;
}

std::vector<Removal> BlobStore::remove_all(const std::vector<const StoreEntry*>& entries,
                                           const std::function<std::time_t(std::size_t)>& cutoff,
                                           unsigned waiters) const {
  // One task an `aa` folder (all its `bb` folders in turn), so that no
  // two tasks remove in one folder; in a flat store, one an entry.
  std::map<std::string, std::map<std::string, std::vector<std::size_t>>> tasks;  // aa -> bb path -> entries
  std::vector<std::vector<std::size_t>> flat;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string leaf_path = folder_of(*entries[i]);
    if (leaf_path.empty())
      flat.push_back({i});
    else
      tasks[leaf_path.substr(0, 2)][leaf_path].push_back(i);
  }
  std::vector<const std::map<std::string, std::vector<std::size_t>>*> sharded;
  for (const auto& [a, leaves] : tasks) sharded.push_back(&leaves);
  std::vector<Removal> out(entries.size(), Removal::Gone);
  parallel_for(
      sharded.size() + flat.size(),
      [&](std::size_t t) {
        if (t >= sharded.size()) {
          const std::size_t i = flat[t - sharded.size()].front();
          out[i] = remove(*entries[i], cutoff(i));
          return;
        }
        bool emptied = false;  // a `bb` folder went: its `aa` may be empty now
        for (const auto& [leaf_path, indexes] : *sharded[t]) {
          Fd fd;
          bool any = false;
          for (const std::size_t i : indexes) {
            if (entries[i]->kind != StoreEntry::Kind::Foreign && !fd.valid()) fd = open_folder(leaf_path);
            out[i] = remove_from(fd.get(), *entries[i], cutoff(i));
            any = any || out[i] == Removal::Removed;
          }
          fd = Fd();
          emptied = (any && remove_leaf_if_empty(leaf_path)) || emptied;
        }
        if (emptied) remove_level1_if_empty(sharded[t]->begin()->first);
      },
      waiters);
  return out;
}

std::optional<std::uint64_t> BlobStore::verify(const Digest& digest, std::optional<std::uint64_t> expected_size) const {
  auto raw = read_raw(digest);
  if (!raw) return std::nullopt;
  // Named as the user sees it: relative to the work tree (or --store).
  const std::string what = path_of(digest).lexically_relative(display_base_).string();
  return check_blob(*raw, digest, expected_size, options_.max_blob_size, what);
}

bool BlobStore::replace_corrupt(const Digest& digest, std::string_view bytes) const {
  check_writable();
  if (Sha256::of(bytes) != digest)
    throw Error("refusing to repair blob " + digest.hex() + ": the bytes offered are another blob's");
  try {
    if (verify(digest)) return false;  // a good copy is there after all
  } catch (const Error&) {
    // corrupt, as expected
  }
  const Fd leaf = open_leaf(digest, true);
  AtomicFile file(leaf.get(), digest.hex() + ".blob.gz", "blob " + path_of(digest).string(), 0666,
                  options_.fsync ? AtomicFile::Durability::Full : AtomicFile::Durability::None);
  file.write(gzip_compress(bytes, options_.compression_level));
  file.commit(AtomicFile::Replace::Yes);
  return true;
}

std::optional<std::uint64_t> BlobStore::trailer_size(const StoreEntry& entry) const {
  if (entry.kind != StoreEntry::Kind::Blob || entry.size < 4) return std::nullopt;
  const std::size_t slash = entry.relative.rfind('/');
  Fd leaf = open_folder(slash == std::string::npos ? "" : entry.relative.substr(0, slash));
  if (!leaf.valid()) return std::nullopt;
  Fd fd(::openat(leaf.get(), entry.relative.substr(slash + 1).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  unsigned char tail[4];
  if (!fd.valid() || ::pread(fd.get(), tail, 4, static_cast<off_t>(entry.size - 4)) != 4) return std::nullopt;
  return std::uint64_t(tail[0]) | std::uint64_t(tail[1]) << 8 | std::uint64_t(tail[2]) << 16 |
         std::uint64_t(tail[3]) << 24;
}

std::vector<Digest> BlobStore::find_prefix(std::string_view hex_prefix) const {
  if (hex_prefix.empty() || hex_prefix.size() > 64 || !is_hex_name(hex_prefix, hex_prefix.size()))
    throw Error("'" + std::string(hex_prefix) + "' is not a digest prefix: give 1 to 64 lowercase hex characters",
                ErrorKind::Usage);
  std::vector<Digest> out;
  auto scan_leaf = [&](const std::string& leaf_path) {
    Fd leaf = open_folder(leaf_path);
    if (!leaf.valid()) return;
    const std::string a = leaf_path.substr(0, 2), b = leaf_path.size() > 3 ? leaf_path.substr(3) : "";
    for (const std::string& name : folder_names(leaf.get(), (root_ / leaf_path).string())) {
      std::optional<Digest> digest;
      if (name.starts_with(hex_prefix) && classify(a, b, name, digest) == StoreEntry::Kind::Blob) {
        struct stat st {};
        if (::fstatat(leaf.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
          out.push_back(*digest);
      }
    }
  };
  auto scan_level1 = [&](const std::string& a) {
    Fd level1 = open_folder(a);
    if (!level1.valid()) return;
    for (const std::string& b : folder_names(level1.get(), (root_ / a).string()))
      if (is_hex_name(b, 2) && (hex_prefix.size() < 3 || hex_prefix.substr(2).starts_with(b.substr(0, hex_prefix.size() - 2))))
        scan_leaf(a + "/" + b);
  };
  if (layout_ == StoreLayout::Flat) {
    scan_leaf("");
  } else if (hex_prefix.size() >= 4) {
    scan_leaf(std::string(hex_prefix.substr(0, 2)) + "/" + std::string(hex_prefix.substr(2, 2)));
  } else if (hex_prefix.size() >= 2) {
    scan_level1(std::string(hex_prefix.substr(0, 2)));
  } else {
    const int root = root_fd(false);
    if (root < 0) return out;
    for (const std::string& a : folder_names(root, root_.string()))
      if (is_hex_name(a, 2) && a[0] == hex_prefix[0]) scan_level1(a);
  }
  return out;
}

}  // namespace jpblob
