#include "core/git/blob_pack.hpp"


#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>

#include <algorithm>
#include <ctime>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/base/parallel.hpp"
#include "core/git/object_hash.hpp"
#include "core/git/pack_parts.hpp"
#include "core/format/gzip.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/subprocess.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

void put_be32(std::string& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((v >> shift) & 0xff));
}

std::string_view type_name(PackObject::Type type) { return type == PackObject::Type::Tree ? "tree" : "blob"; }

// An object's id, raw: the hash of "<type> <size>\0" and the bytes.
std::string raw_id_of(PackObject::Type type, std::string_view bytes, const std::string& object_format) {
  ObjectHasher id(object_format);
  id.update(std::string(type_name(type)) + " " + std::to_string(bytes.size()));
  id.update(std::string_view("\0", 1));
  id.update(bytes);
  return id.finish_raw();
}

// A pack holds at most 2^32 - 1 objects.
constexpr std::size_t kMaxObjects = 0xffffffffu;

// As `git fetch` does with fetch.unpackLimit's default: fewer objects than
// this are written loose (`git unpack-objects`), so everyday commits of a
// few blobs do not leave a small pack each for `git gc --auto` to count;
// more are kept as one pack (`git index-pack`).
constexpr std::size_t kUnpackLimit = 100;

// Writes `pack` into `folder` (git's objects/pack) as a pack and its index
// (version 2), what `git index-pack` makes of the same stream without
// inflating and hashing every object again: the stream knows each
// object's id, offset and CRC as it makes them. Both files are synced
// before the index is renamed into place, which is what makes the pack
// visible to git: the callers remove the only other copies of what it holds.
// Returns the pack's name ("pack-<hex>").
std::string write_pack_files(PackStream& pack, const fs::path& folder, const std::string& what) {
  const std::string suffix = std::to_string(::getpid()) + "_" + std::to_string(reinterpret_cast<std::uintptr_t>(&pack));
  PackTempFile packfile;
  packfile.open(folder / (std::string(kPackTemp) + suffix), what);
  std::string chunk, buffer, checksum;
  const std::string pack_name = "the new pack " + packfile.path.string();
  off_t written = 0;
  while (pack.next(chunk)) {
    buffer.append(chunk);
    if (buffer.size() >= (1u << 20)) {
      write_all(packfile.fd.get(), buffer, pack_name);
      // Each megabyte starts on its way to the disk now, while the next
      // ones are made, rather than all at the fsync below (0.4 s of a
      // 491 MB pack's 1.4 s on this disk). Asks for nothing durable: the
      // fsync still does.
      ::sync_file_range(packfile.fd.get(), written, static_cast<off_t>(buffer.size()), SYNC_FILE_RANGE_WRITE);
      written += static_cast<off_t>(buffer.size());
      buffer.clear();
    }
    checksum = chunk;  // the last one is the pack's checksum
  }
  write_all(packfile.fd.get(), buffer, pack_name);
  packfile.finish(what);

  return publish_pack(packfile, pack.placed(), checksum, folder, suffix, what);
}

}  // namespace

std::string publish_pack(PackTempFile& packfile, const std::vector<PackStream::Placed>& placed, const std::string& checksum,
                         const fs::path& folder, const std::string& suffix, const std::string& what) {
  // The index: the ids in order, with a fan-out table of their first byte.
  std::vector<const PackStream::Placed*> sorted;
  for (const auto& p : placed) sorted.push_back(&p);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) { return a->id < b->id; });
  std::string idx("\xfftOc", 4);
  put_be32(idx, 2);
  std::uint32_t fanout[256] = {};
  for (const auto* p : sorted) ++fanout[static_cast<unsigned char>(p->id[0])];
  for (std::uint32_t i = 0, total = 0; i < 256; ++i) put_be32(idx, total += fanout[i]);
  for (const auto* p : sorted) idx.append(p->id);
  for (const auto* p : sorted) put_be32(idx, p->crc);
  std::string large;  // offsets past 2 GiB, 8 bytes each, named by their place
  for (const auto* p : sorted) {
    if (p->offset < 0x80000000u) {
      put_be32(idx, static_cast<std::uint32_t>(p->offset));
      continue;
    }
    put_be32(idx, 0x80000000u | static_cast<std::uint32_t>(large.size() / 8));
    put_be32(large, static_cast<std::uint32_t>(p->offset >> 32));
    put_be32(large, static_cast<std::uint32_t>(p->offset));
  }
  idx.append(large).append(checksum);
  ObjectHasher sum(checksum.size() == 32 ? "sha256" : "sha1");
  sum.update(idx);
  idx.append(sum.finish_raw());
  PackTempFile index;
  index.open(folder / (std::string(kIndexTemp) + suffix), what);
  write_all(index.fd.get(), idx, "the new pack's index " + index.path.string());
  index.finish(what);

  const std::string name = "pack-" + hex_object_id(checksum);
  // The pack first: git finds a pack by its index.
  for (PackTempFile* t : {&packfile, &index}) {
    const fs::path final = folder / (name + (t == &packfile ? ".pack" : ".idx"));
    if (::rename(t->path.c_str(), final.c_str()) != 0) throw errno_error("cannot " + what + ": " + final.string(), errno);
    t->path.clear();
  }
  Fd dir(::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir.valid()) fsync_dir(dir.get(), what);
  return name;
}

void write_pack_keep(const fs::path& folder, const std::string& name, std::string_view keep) {
  const std::string what = "keep " + name;
  PackTempFile mark;
  mark.open(folder / (std::string(kKeepTemp) + std::to_string(::getpid()) + "_keep"), what);
  write_all(mark.fd.get(), std::string(keep) + "\n", "the new pack's .keep " + mark.path.string());
  mark.finish(what);
  const fs::path final = folder / (name + ".keep");
  if (::rename(mark.path.c_str(), final.c_str()) != 0) throw errno_error("cannot " + what + ": " + final.string(), errno);
  mark.path.clear();
}

std::optional<std::string> read_stored_blob(std::string_view entry) {
  // The header: type and size (write_pack's), then the zlib stream.
  if (entry.empty() || ((static_cast<unsigned char>(entry[0]) >> 4) & 7) != static_cast<unsigned>(PackObject::Type::Blob))
    return std::nullopt;
  std::uint64_t size = static_cast<unsigned char>(entry[0]) & 15;
  std::size_t at = 1;
  for (unsigned shift = 4; static_cast<unsigned char>(entry[at - 1]) & 0x80; shift += 7, ++at) {
    if (at >= entry.size() || shift > 56) return std::nullopt;
    size |= static_cast<std::uint64_t>(static_cast<unsigned char>(entry[at]) & 0x7f) << shift;
  }
  if (size > entry.size() * 2 + 64) return std::nullopt;  // stored: never larger than its entry
  return zlib_decompress_exact(entry.substr(at), static_cast<std::size_t>(size));
}

std::size_t remove_unfinished_packs(const fs::path& pack_folder, bool remove) {
  const Fd dir(::open(pack_folder.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (!dir.valid()) return 0;
  std::vector<std::string> names;
  try {
    names = folder_names(dir.get(), pack_folder.string());
  } catch (const Error&) {
    return 0;  // unreadable: nothing of it is judged
  }
  const std::time_t hour_ago = std::time(nullptr) - 3600;
  std::size_t count = 0;
  for (const std::string& name : names) {
    std::string_view rest = name;
    if (rest.starts_with(kPackTemp)) rest.remove_prefix(kPackTemp.size());
    else if (rest.starts_with(kIndexTemp)) rest.remove_prefix(kIndexTemp.size());
    else if (rest.starts_with(kKeepTemp)) rest.remove_prefix(kKeepTemp.size());
    else continue;
    const std::size_t digits = rest.find('_');
    if (digits == 0 || digits == std::string_view::npos || digits > 9 ||
        rest.substr(0, digits).find_first_not_of("0123456789") != std::string_view::npos)
      continue;
    const pid_t pid = static_cast<pid_t>(std::stol(std::string(rest.substr(0, digits))));
    struct stat st {};
    if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_mtime > hour_ago)
      continue;
    if (pid > 0 && (::kill(pid, 0) == 0 || errno != ESRCH)) continue;  // running, or not ours to ask
    if (remove && ::unlinkat(dir.get(), name.c_str(), 0) != 0) continue;
    ++count;
  }
  return count;
}

std::string object_id(PackObject::Type type, std::string_view bytes, const std::string& object_format) {
  return hex_object_id(raw_id_of(type, bytes, object_format));
}

PackStream::PackStream(std::vector<PackObject> objects, const std::string& object_format, std::uint64_t max_size)
    : objects_(std::move(objects)), max_size_(max_size), pack_(std::make_unique<ObjectHasher>(object_format)),
      format_(object_format) {
  if (objects_.size() > kMaxObjects) throw Error("cannot write more than 2^32 - 1 objects in one pack");
  ids_.reserve(objects_.size());
}

PackStream::~PackStream() = default;

PackStream::Made PackStream::make(PackObject& object) const {
  Made made;
  const std::string bytes = object.file.empty() ? std::move(object.bytes) : read_file(object.file, max_size_);
  made.id = raw_id_of(object.type, bytes, format_);
  made.chunk = pack_entry(object.type, bytes);
  made.crc = libdeflate_crc32(0, made.chunk.data(), made.chunk.size());
  return made;
}

std::string pack_entry(PackObject::Type type, std::string_view bytes) {
  std::string entry;
  // The entry's header: the type and the size, four bits of it in the
  // first byte, seven in each after, low bits first.
  std::uint64_t size = bytes.size();
  auto c = static_cast<unsigned char>(static_cast<unsigned>(type) << 4 | (size & 15));
  size >>= 4;
  while (size) {
    entry.push_back(static_cast<char>(c | 0x80));
    c = static_cast<unsigned char>(size & 0x7f);
    size >>= 7;
  }
  entry.push_back(static_cast<char>(c));
  // Stored, in one copy: blob files are gzip already, and deflate makes
  // the store's trees (hex names and binary ids) 9% smaller at 11 µs
  // each, most of it setting up for a few hundred bytes; 54,000 of them
  // took half a second. Anything else compresses.
  const bool stored = type == PackObject::Type::Tree || bytes.starts_with("\x1f\x8b");
  zlib_compress_to(entry, bytes, stored ? 0 : 1);
  return entry;
}

// A batch is up to 512 objects or about 16 MB of them (one larger object
// alone), made on every core: hashing and framing 491 MB of blobs one
// after the other took a second of the commit that staged them.
constexpr std::uint64_t kBatchBytes = 16u << 20;
constexpr std::size_t kBatchCount = 512;

std::pair<std::size_t, std::uint64_t> PackStream::batch_end(std::size_t from) const {
  std::size_t end = from;
  std::uint64_t bytes = 0;
  while (end < objects_.size() && end - from < kBatchCount) {
    const PackObject& o = objects_[end];
    struct stat st {};
    const std::uint64_t size = !o.file.empty() ? (::stat(o.file.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0)
                                               : o.bytes.size();
    if (end > from && bytes + size > kBatchBytes) break;
    bytes += size;
    ++end;
  }
  return {end, bytes};
}

std::vector<PackStream::Made> PackStream::make_batch(std::size_t from, std::size_t end) {
  std::vector<Made> batch(end - from);
  parallel_for(batch.size(), [&](std::size_t k) {
    try {
      batch[k] = make(objects_[from + k]);
    } catch (...) {
      batch[k].error = std::current_exception();
    }
  });
  return batch;
}

bool PackStream::next(std::string& chunk) {
  chunk.clear();
  if (done_) return false;
  if (!started_) {
    started_ = true;
    chunk.append("PACK");
    put_be32(chunk, 2);
    put_be32(chunk, static_cast<std::uint32_t>(objects_.size()));
  } else if (next_ < objects_.size()) {
    if (batch_next_ == batch_.size()) {
      // The batch made ahead, or this one now; then the one after it
      // starts while this one is checksummed and written, which took the
      // cores turns. Not past a batch of one large object: memory holds
      // at most one of those.
      std::uint64_t bytes = 0;
      if (ahead_.valid()) {
        batch_ = ahead_.get();
      } else {
        const auto [end, size] = batch_end(next_);
        bytes = size;
        batch_ = make_batch(next_, end);
      }
      batch_next_ = 0;
      const std::size_t from = next_ + batch_.size();
      if (from < objects_.size() && bytes <= kBatchBytes) {
        // Not a structured binding: clang 14 cannot capture one.
        const std::pair<std::size_t, std::uint64_t> following = batch_end(from);
        const std::size_t end = following.first;
        if (following.second <= kBatchBytes) {
          try {
            ahead_ = std::async(std::launch::async, [this, from, end] { return make_batch(from, end); });
          } catch (const std::system_error&) {
            // No thread to be had: the next batch is made in its turn.
          }
        }
      }
    }
    Made& made = batch_[batch_next_++];
    ++next_;
    if (made.error) std::rethrow_exception(made.error);
    placed_.push_back({std::move(made.id), offset_, made.crc});
    ids_.push_back(hex_object_id(placed_.back().id));
    chunk = std::move(made.chunk);
  } else {
    chunk = pack_->finish_raw();
    done_ = true;
    return true;  // the checksum is not part of what it sums
  }
  pack_->update(chunk);
  offset_ += chunk.size();
  return true;
}

std::vector<std::string> GitCli::write_objects(std::vector<PackObject> objects, const std::string& format,
                                              std::uint64_t max_size) const {
  if (objects.empty()) return {};
  const std::size_t count = objects.size();
  PackStream pack(std::move(objects), format, max_size);
  const std::vector<std::string> args = count < kUnpackLimit
                                            ? std::vector<std::string>{"git", "unpack-objects", "-q"}
                                            : std::vector<std::string>{"git", "index-pack", "--stdin"};
  if (count >= kUnpackLimit) {
    if (const auto folder = own_pack_folder()) {
      write_pack_files(pack, *folder, "write to git's objects");
      return pack.ids();
    }
  }
  const auto r = run_command(args, cwd_, [&](std::string& chunk) { return pack.next(chunk); });
  if (r.status != 0)
    throw Error("cannot write to git's objects: git " + args[1] + " failed: " + r.err.substr(0, r.err.find('\n')));
  return pack.ids();
}

std::optional<fs::path> GitCli::own_pack_folder() const {
  // A shared repository's files get the group's permissions: git's own
  // index-pack knows how.
  if (const auto shared = config_get("core.sharedRepository", std::nullopt);
      shared && *shared != "false" && *shared != "umask" && *shared != "0")
    return std::nullopt;
  const std::string out = must("find git's objects", {"rev-parse", "--git-path", "objects/pack"});
  const fs::path folder = fs::absolute(cwd_ / out.substr(0, out.find('\n')));
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return std::nullopt;
  return folder;
}

void GitCli::add_many_to_index(const std::vector<std::string>& paths, std::uint64_t max_size) const {
  if (paths.size() >= kUnpackLimit) {
    const auto filter_of = filters_of(paths);
    std::vector<std::string> files;
    for (const std::string& p : paths)
      if (const auto f = filter_of.find(p); f == filter_of.end() || f->second.empty()) files.push_back((cwd_ / p).string());
    write_blobs(files, max_size);
  }
  add_to_index(paths);
  write_trees_holding(paths);
}

std::string GitCli::object_format() const {
  const std::string out = must("read the object format", {"rev-parse", "--show-object-format"});
  return out.substr(0, out.find('\n'));
}

std::vector<std::string> GitCli::write_blobs(const std::vector<std::string>& files, std::uint64_t max_size) const {
  // Each file once: a pack may not hold one object twice.
  std::unordered_map<std::string_view, std::size_t> first;
  std::vector<PackObject> unique;
  std::vector<std::size_t> slot(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    const auto [it, added] = first.emplace(files[i], unique.size());
    if (added) unique.push_back({PackObject::Type::Blob, files[i], {}});
    slot[i] = it->second;
  }
  const auto written = write_objects(std::move(unique), object_format(), max_size);
  std::vector<std::string> ids;
  ids.reserve(files.size());
  for (const std::size_t s : slot) ids.push_back(written[s]);
  return ids;
}

}  // namespace jpblob
