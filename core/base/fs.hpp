// POSIX file primitives: owned descriptors, whole-file reads, and atomic,
// durable file replacement.
//
// Every call that can fail for lack of space or permission goes through
// `syscalls()`, a table of function pointers that tests replace (through
// ScopedSyscalls) to inject ENOSPC, EROFS or EIO where a real disk cannot be
// made to fail on demand. Production code never changes the table.
#pragma once

#include <cerrno>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace jpblob {

struct Syscalls {
  int (*openat)(int dirfd, const char* path, int flags, mode_t mode);
  ssize_t (*write)(int fd, const void* buf, size_t n);
  int (*fsync)(int fd);
  int (*mkdirat)(int dirfd, const char* path, mode_t mode);
  int (*renameat)(int olddirfd, const char* oldpath, int newdirfd, const char* newpath);
  int (*syncfs)(int fd);
  // openat2(2): `how` is a struct open_how. -1 with ENOSYS where the
  // kernel has none.
  long (*openat2)(int dirfd, const char* path, void* how, size_t size);
};

// The table in use. Not thread-safe to modify; tests swap it while no other
// thread does I/O.
Syscalls& syscalls();

// Replaces entries of syscalls() for its lifetime, then restores them.
class ScopedSyscalls {
 public:
  explicit ScopedSyscalls(const Syscalls& replacement);
  ~ScopedSyscalls();
  ScopedSyscalls(const ScopedSyscalls&) = delete;
  ScopedSyscalls& operator=(const ScopedSyscalls&) = delete;

 private:
  Syscalls saved_;
};

// An owned file descriptor, closed on destruction.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept;
  ~Fd();
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int f = fd_;
    fd_ = -1;
    return f;
  }

 private:
  int fd_ = -1;
};

// A regular file mapped read-only, as git maps its index: no copy, and
// no fresh memory zeroed for one. For files that are replaced by a rename,
// never rewritten in place (git's index under its lock): a file truncated
// while mapped would fault. Throws Error naming `what` when it cannot be
// mapped or is not a regular file.
class MappedFile {
 public:
  MappedFile(int fd, const std::string& what);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  std::string_view view() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

// Writes all of `data`, retrying short writes and EINTR. Throws Error naming
// `what` on failure (ENOSPC included).
void write_all(int fd, std::string_view data, const std::string& what);

// Reads the whole of an open file. Throws Error naming `what` when it is
// larger than `max_size` bytes or a read fails.
std::string read_all(int fd, const std::string& what, std::uint64_t max_size = UINT64_MAX);

// The names in an open folder, "." and ".." left out, in no order. Throws
// Error naming `what` when it cannot be read.
std::vector<std::string> folder_names(int dirfd, const std::string& what);

// Reads a whole file by path, following symlinks. Throws Error on failure.
std::string read_file(const std::filesystem::path& path,
                      std::uint64_t max_size = UINT64_MAX);

// Makes a directory's entries durable.
void fsync_dir(int dirfd, const std::string& what);

// Makes everything written to the filesystem holding `fd` durable: one
// call for a whole batch of files instead of one fsync each.
void sync_filesystem(int fd, const std::string& what);

// True when link(2) failed with `err` because no hard link can be made
// there (another file system, one without links, too many links), as
// opposed to a real failure: callers then rename or copy instead.
inline bool cannot_link(int err) {
  return err == EXDEV || err == EPERM || err == ENOTSUP || err == EOPNOTSUPP || err == EMLINK;
}

// A file written under a temporary name in its final folder and renamed into
// place by commit(): readers see the old file or the whole new one, never a
// part. The data and the folder are fsynced before commit() returns. If
// commit() is never reached the temporary file is removed on destruction.
class AtomicFile {
 public:
  enum class Replace { Yes, No };
  // Durability::None skips both fsyncs: for throwaway stores (fuzzing,
  // tests) and for users who set jpblob.fsync=false, as git's core.fsync.
  enum class Durability { Full, None };

  // `dirfd` is borrowed and must outlive the object. `name` is a single path
  // component. The temporary file starts with kTempPrefix so gc can recognise
  // strays left by a killed process.
  AtomicFile(int dirfd, std::string name, std::string what, mode_t mode = 0666,
             Durability durability = Durability::Full);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(std::string_view data);
  // fchmod of the temporary file: the permission bits the file is
  // published with, umask aside.
  void set_mode(mode_t mode);

  // Closes the temporary file without syncing it, for callers that make
  // many files durable at once (sync_filesystem) before committing them.
  // commit() then only publishes.
  void close_unsynced();

  // Publishes the file. With Replace::No an existing file of that name is
  // kept and the new one discarded (returns false); the store uses this so a
  // present blob is never rewritten.
  bool commit(Replace replace = Replace::Yes);

  static constexpr std::string_view kTempPrefix = ".jpblob-tmp-";

 private:
  int dirfd_;
  std::string name_;
  std::string temp_name_;
  std::string what_;
  Fd fd_;
  Durability durability_;
  bool done_ = false;
};

// Writes `data` to `path` atomically and durably (see AtomicFile).
void write_file_atomic(const std::filesystem::path& path, std::string_view data);

// A private folder under the system's temporary folder (mode 0700), for
// throwaway files (a scratch store, the inputs of git merge-file); it and
// everything in it are removed on destruction. Throws Error naming `what`
// when it cannot be made.
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& what);
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  // Writes a throwaway file in the folder: no fsync, no temporary name.
  std::filesystem::path write(const std::string& name, std::string_view data) const;

 private:
  std::filesystem::path path_;
};

}  // namespace jpblob
