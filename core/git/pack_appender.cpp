#include <fcntl.h>
#include <libdeflate.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/git/blob_pack.hpp"
#include "core/git/object_hash.hpp"
#include "core/git/pack_parts.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

// "PACK", version 2, the count: 12 bytes.
std::string pack_header(std::uint32_t count) {
  std::string h("PACK\0\0\0\2", 8);
  for (int shift = 24; shift >= 0; shift -= 8) h.push_back(static_cast<char>(count >> shift & 0xff));
  return h;
}

}  // namespace

struct PackAppender::State {
  PackTempFile file;
  std::string suffix;
  std::vector<PackStream::Placed> placed;
  std::uint64_t end = 0;  // bytes written
};

PackAppender::PackAppender(fs::path folder, std::string object_format)
    : folder_(std::move(folder)), format_(std::move(object_format)), state_(std::make_unique<State>()) {}

PackAppender::~PackAppender() = default;

std::size_t PackAppender::count() const { return state_->placed.size(); }

PackAppender::Appended PackAppender::append_blob(std::string_view bytes) {
  State& st = *state_;
  if (!st.file.fd.valid()) {
    st.suffix = std::to_string(::getpid()) + "_" + std::to_string(reinterpret_cast<std::uintptr_t>(this));
    st.file.open(folder_ / (std::string(kPackTemp) + st.suffix), "write a pack", O_RDWR);
    write_all(st.file.fd.get(), pack_header(0), "the new pack " + st.file.path.string());
    st.end = 12;
  }
  if (st.placed.size() >= 0xffffffffu) throw Error("cannot write more than 2^32 - 1 objects in one pack");
  const std::string entry = pack_entry(PackObject::Type::Blob, bytes);
  const std::string id = object_id(PackObject::Type::Blob, bytes, format_);
  write_all(st.file.fd.get(), entry, "the new pack " + st.file.path.string());
  st.placed.push_back({raw_object_id(id), st.end, libdeflate_crc32(0, entry.data(), entry.size())});
  Appended out{id, st.end, entry.size()};
  st.end += entry.size();
  return out;
}

std::string PackAppender::finish() {
  State& st = *state_;
  if (st.placed.empty()) throw Error("cannot finish a pack with no object");
  const std::string what = "write the pack " + st.file.path.string();
  const std::string header = pack_header(static_cast<std::uint32_t>(st.placed.size()));
  if (::pwrite(st.file.fd.get(), header.data(), header.size(), 0) != static_cast<ssize_t>(header.size()))
    throw errno_error("cannot " + what, errno);
  // The checksum over every byte, read back (from the page cache).
  ObjectHasher sum(format_);
  std::string chunk(1 << 20, '\0');
  for (std::uint64_t at = 0; at < st.end;) {
    const ssize_t got = ::pread(st.file.fd.get(), chunk.data(), chunk.size(), static_cast<off_t>(at));
    if (got <= 0) throw errno_error("cannot read back " + st.file.path.string(), got < 0 ? errno : EIO);
    sum.update(std::string_view(chunk.data(), static_cast<std::size_t>(got)));
    at += static_cast<std::uint64_t>(got);
  }
  const std::string checksum = sum.finish_raw();
  if (::pwrite(st.file.fd.get(), checksum.data(), checksum.size(), static_cast<off_t>(st.end)) !=
      static_cast<ssize_t>(checksum.size()))
    throw errno_error("cannot " + what, errno);
  st.file.finish(what);
  std::string name = publish_pack(st.file, st.placed, checksum, folder_, st.suffix, what);
  state_ = std::make_unique<State>();
  return name;
}

}  // namespace jpblob
