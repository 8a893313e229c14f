// The one way git-jpblob opens a path inside a work tree (docs/
// ARCHITECTURE.md, "The safe path layer"; docs/FORMAT.md, "The repository
// is untrusted").
//
// A cloned repository is written by someone else, so a path below its top
// is untrusted: any component may be a symbolic link a hostile commit
// planted. A SafeDir is a trusted base folder (a work tree's top, a --store
// folder, the folder holding a session file the user named) opened once;
// every path below it is resolved one component at a time with O_NOFOLLOW,
// so no link is ever followed. A link is refused with one line:
//
//   refusing <path>: it is a symbolic link (git-jpblob never follows links inside a repository)
//
// where <path> is the link's path relative to the base. Relative paths
// must be relative and hold no ".." (a logic Error otherwise).
//
// Descriptors are bounded by depth, not by count: the walk of a folder
// (find_files: conversations, sessions, artifact folders) once kept every
// subfolder open from listing it until its turn, so 50,000 conversations
// needed 50,000 descriptors and gc, verify and stats failed with "Too many
// open files" at the default `ulimit -n`. A folder waiting its turn is now
// its parent's descriptor (shared) and its name: one descriptor a level
// (SafePathTest.AWalkHoldsADescriptorALevelNotAFolder, e2e descriptor_limit).
//
// Thread safety: a SafeDir holds only its descriptor; calls may run at once.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/fs.hpp"

namespace jpblob {

class SafeDir {
 public:
  enum class Create { No, Yes };

  // Opens `base`, which may itself be reached through links above it:
  // where a user keeps the repository is the user's business. Throws Error
  // when it cannot be opened as a folder.
  static SafeDir open(const std::filesystem::path& base);

  const std::filesystem::path& path() const { return path_; }
  int fd() const { return fd_->get(); }

  // The folder at `rel` (base itself for "" or "."), created with its
  // missing parents when `create` says so. An invalid Fd when it does not
  // exist and is not created. Throws on a link or a non-folder on the way.
  Fd open_folder(const std::filesystem::path& rel, Create create = Create::No) const;

  // openat(2) of `rel` with `flags` (O_NOFOLLOW and O_CLOEXEC added), its
  // folder opened as open_folder does. An invalid Fd with errno ENOENT when
  // the file or a folder on the way is absent.
  Fd open_file(const std::filesystem::path& rel, int flags, mode_t mode = 0666) const;

  // The bytes of the regular file at `rel`, nullopt when absent. Refuses a
  // link, a FIFO (without blocking on it) or anything but a regular file,
  // and a file larger than `max_size`.
  std::optional<std::string> read(const std::filesystem::path& rel, std::uint64_t max_size = UINT64_MAX) const;

  // Replaces (or creates) the file at `rel` atomically and durably (see
  // AtomicFile) with permission bits `mode`, or by default an existing
  // file's (0666 less the umask for a new one), creating missing folders.
  // Refuses to replace a link.
  void write_atomic(const std::filesystem::path& rel, std::string_view data,
                    std::optional<mode_t> mode = std::nullopt) const;

  // lstat(2) of `rel` (a link is reported, not followed); nullopt when
  // absent. Throws on a link or non-folder among the folders on the way.
  std::optional<struct stat> lstat(const std::filesystem::path& rel) const;

  // Removes the file (not folder) at `rel`; false when it was absent.
  bool remove(const std::filesystem::path& rel) const;

  // Renames a file within the base; neither path may pass through a link.
  void rename(const std::filesystem::path& from, const std::filesystem::path& to) const;

  // Appends to `out`, sorted, the path (relative to the base) of every
  // regular file below the folder `rel` whose name `keep` accepts, at any
  // depth. A missing folder yields nothing. A link whose name `keep`
  // accepts, or that leads to a folder, is refused; any other link is
  // skipped, never read. With Depth::One only the folder's own files are
  // looked at: its subfolders and links are skipped, never refused.
  enum class Depth { Any, One };
  void find_files(const std::filesystem::path& rel, const std::function<bool(const std::string& name)>& keep,
                  std::vector<std::filesystem::path>& out, Depth depth = Depth::Any) const;

  // The refusal for a link at `rel`.
  static std::string refusal(const std::filesystem::path& rel);

 private:
  SafeDir(std::filesystem::path path, Fd fd)
      : path_(std::move(path)), fd_(std::make_shared<Fd>(std::move(fd))) {}
  // The folder holding the last component of `rel`, and that component.
  std::pair<Fd, std::string> open_parent(const std::filesystem::path& rel, Create create) const;

  std::filesystem::path path_;
  std::shared_ptr<Fd> fd_;  // shared: a SafeDir is cheap to copy
};

// A path given from outside (a user's argument, a folder git names) as a
// base and a path below it: below `top` when it is inside `top`
// (lexically), else below its own parent folder.
struct SafeLocation {
  SafeDir base;
  std::filesystem::path rel;
};
SafeLocation locate_safely(const std::filesystem::path& path, const std::filesystem::path& top);

}  // namespace jpblob
