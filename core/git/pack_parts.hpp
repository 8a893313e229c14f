// The pieces of git's pack format that core/git/blob_pack.cpp and
// core/git/pack_appender.cpp share: a pack's temporary file, an object's
// entry, and publishing a written pack with its index. Internal to core/git.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/git/blob_pack.hpp"

namespace jpblob {

// The temporary names of a pack and its index being written: the writer's
// pid, then what tells its streams apart (remove_unfinished_packs).
inline constexpr std::string_view kPackTemp = "tmp_pack_jpblob_", kIndexTemp = "tmp_idx_jpblob_",
                           kKeepTemp = "tmp_keep_jpblob_";

// A temporary file in the pack folder, removed unless renamed.
struct PackTempFile {
  std::filesystem::path path;
  Fd fd;
  ~PackTempFile() {
    if (!path.empty()) ::unlink(path.c_str());
  }
  void open(const std::filesystem::path& p, const std::string& what, int access = O_WRONLY) {
    fd = Fd(::open(p.c_str(), access | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444));
    if (!fd.valid()) throw errno_error("cannot " + what + ": " + p.string(), errno);
    path = p;
  }
  void finish(const std::string& what) {
    if (::fsync(fd.get()) != 0) throw errno_error("cannot " + what + ": " + path.string(), errno);
    fd = Fd();
  }
};


// An object's entry in a pack: its type and size, then its bytes through
// zlib (stored for a blob file's gzip bytes and for trees).
std::string pack_entry(PackObject::Type type, std::string_view bytes);

// Writes the index (version 2) of the synced pack `packfile` whose entries
// are `placed` and whose checksum is `checksum` beside it in `folder`, then
// names both `pack-<hex>` (the
// pack first: git finds a pack by its index) and syncs the folder. Temporary
// names end in `suffix`. Returns the name. Throws Error naming `what`.
std::string publish_pack(PackTempFile& packfile, const std::vector<PackStream::Placed>& placed,
                         const std::string& checksum, const std::filesystem::path& folder, const std::string& suffix,
                         const std::string& what);

}  // namespace jpblob
