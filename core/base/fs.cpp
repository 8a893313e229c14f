#include "core/base/fs.hpp"

#include <dirent.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <random>

#include "core/base/buffer.hpp"
#include "core/base/error.hpp"

namespace jpblob {

namespace {
int real_openat(int dirfd, const char* path, int flags, mode_t mode) {
  return ::openat(dirfd, path, flags, mode);
}
int real_renameat(int a, const char* b, int c, const char* d) { return ::renameat(a, b, c, d); }
long real_openat2(int dirfd, const char* path, void* how, size_t size) {
#ifdef SYS_openat2
  return ::syscall(SYS_openat2, dirfd, path, how, size);
#else
  (void)dirfd, (void)path, (void)how, (void)size;
  errno = ENOSYS;
  return -1;
#endif
}

Syscalls& table() {
  static Syscalls t{real_openat, ::write, ::fsync, ::mkdirat, real_renameat, ::syncfs, real_openat2};
  return t;
}

std::string unique_suffix() {
  // pid + counter + random bits: unique across processes and threads, and
  // unguessable enough that an O_EXCL collision is a real anomaly.
  static std::atomic<unsigned> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%d-%u-%08llx", static_cast<int>(::getpid()), counter++,
                static_cast<unsigned long long>(rng() & 0xffffffffu));
  return buf;
}
}  // namespace

Syscalls& syscalls() { return table(); }

ScopedSyscalls::ScopedSyscalls(const Syscalls& replacement) : saved_(table()) {
  table() = replacement;
}
ScopedSyscalls::~ScopedSyscalls() { table() = saved_; }

Fd& Fd::operator=(Fd&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.release();
  }
  return *this;
}

Fd::~Fd() {
  if (fd_ >= 0) ::close(fd_);
}

void write_all(int fd, std::string_view data, const std::string& what) {
  while (!data.empty()) {
    ssize_t n = syscalls().write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw errno_error("cannot write " + what, errno);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

MappedFile::MappedFile(int fd, const std::string& what) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw errno_error("cannot read " + what, errno);
  if (!S_ISREG(st.st_mode)) throw Error("cannot read " + what + ": it is not a regular file");
  size_ = static_cast<std::size_t>(st.st_size);
  if (size_ == 0) return;  // nothing to map (mmap refuses a length of 0)
  data_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
  if (data_ == MAP_FAILED) {
    data_ = nullptr;
    throw errno_error("cannot read " + what, errno);
  }
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

std::string read_all(int fd, const std::string& what, std::uint64_t max_size) {
  struct stat st {};
  std::string out;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    if (static_cast<std::uint64_t>(st.st_size) > max_size)
      throw Error("cannot read " + what + ": it is larger than " + std::to_string(max_size) +
                  " bytes");
    reserve_large(out, static_cast<std::size_t>(st.st_size));
  }
  char buf[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw errno_error("cannot read " + what, errno);
    }
    if (n == 0) break;
    if (out.size() + static_cast<std::size_t>(n) > max_size)
      throw Error("cannot read " + what + ": it is larger than " + std::to_string(max_size) +
                  " bytes");
    reserve_large(out, out.size() + static_cast<std::size_t>(n));
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

std::string read_file(const std::filesystem::path& path, std::uint64_t max_size) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) throw errno_error("cannot open " + path.string(), errno);
  return read_all(fd.get(), path.string(), max_size);
}

void fsync_dir(int dirfd, const std::string& what) {
  // Some filesystems refuse fsync on directories (EINVAL); their renames are
  // as durable as they get, so that is not an error.
  if (syscalls().fsync(dirfd) != 0 && errno != EINVAL && errno != EROFS)
    throw errno_error("cannot sync folder " + what, errno);
}

AtomicFile::AtomicFile(int dirfd, std::string name, std::string what, mode_t mode,
                       Durability durability)
    : dirfd_(dirfd), name_(std::move(name)), what_(std::move(what)), durability_(durability) {
  temp_name_ = std::string(kTempPrefix) + unique_suffix();
  fd_ = Fd(syscalls().openat(dirfd_, temp_name_.c_str(),
                             O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode));
  if (!fd_.valid()) throw errno_error("cannot create a temporary file for " + what_, errno);
}

AtomicFile::~AtomicFile() {
  if (!done_) {
    fd_ = Fd();
    ::unlinkat(dirfd_, temp_name_.c_str(), 0);
  }
}

void AtomicFile::write(std::string_view data) { write_all(fd_.get(), data, what_); }

void AtomicFile::set_mode(mode_t mode) {
  if (::fchmod(fd_.get(), mode) != 0) throw errno_error("cannot set the permissions of " + what_, errno);
}

void AtomicFile::close_unsynced() {
  if (::close(fd_.release()) != 0) throw errno_error("cannot close " + what_, errno);
  durability_ = Durability::None;
}

void sync_filesystem(int fd, const std::string& what) {
  if (syscalls().syncfs(fd) != 0) throw errno_error("cannot sync " + what, errno);
}

bool AtomicFile::commit(Replace replace) {
  const bool sync = durability_ == Durability::Full;
  if (fd_.valid()) {
    if (sync && syscalls().fsync(fd_.get()) != 0) throw errno_error("cannot sync " + what_, errno);
    if (::close(fd_.release()) != 0) throw errno_error("cannot close " + what_, errno);
  }
  bool published = true;
  if (replace == Replace::No) {
    // link() refuses to replace, so a present file is never rewritten, even
    // by a concurrent writer that lost the race.
    if (::linkat(dirfd_, temp_name_.c_str(), dirfd_, name_.c_str(), 0) == 0) {
      ::unlinkat(dirfd_, temp_name_.c_str(), 0);
    } else if (errno == EEXIST) {
      ::unlinkat(dirfd_, temp_name_.c_str(), 0);
      published = false;
    } else if (cannot_link(errno)) {
      // Filesystems without hard links: fall back to rename, which is safe
      // because equal names hold equal bytes in a content-addressed store.
      if (syscalls().renameat(dirfd_, temp_name_.c_str(), dirfd_, name_.c_str()) != 0)
        throw errno_error("cannot move " + what_ + " into place", errno);
    } else {
      throw errno_error("cannot move " + what_ + " into place", errno);
    }
  } else if (syscalls().renameat(dirfd_, temp_name_.c_str(), dirfd_, name_.c_str()) != 0) {
    throw errno_error("cannot move " + what_ + " into place", errno);
  }
  done_ = true;
  if (sync) fsync_dir(dirfd_, what_);
  return published;
}

void write_file_atomic(const std::filesystem::path& path, std::string_view data) {
  const auto parent = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  Fd dir(::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dir.valid()) throw errno_error("cannot open folder " + parent.string(), errno);
  // Keep the file's permission bits when replacing it.
  mode_t mode = 0666;
  struct stat st {};
  if (::fstatat(dir.get(), path.filename().c_str(), &st, 0) == 0) mode = st.st_mode & 07777;
  AtomicFile file(dir.get(), path.filename(), path.string(), mode);
  file.write(data);
  file.commit();
}

std::vector<std::string> folder_names(int dirfd, const std::string& what) {
  std::vector<std::string> names;
  const int fd = ::dup(dirfd);
  DIR* dir = fd >= 0 ? ::fdopendir(fd) : nullptr;
  if (!dir) throw errno_error("cannot list " + what, errno);
  ::rewinddir(dir);
  errno = 0;
  while (dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  const int err = errno;
  ::closedir(dir);
  if (err) throw errno_error("cannot list " + what, err);
  return names;
}

ScratchDir::ScratchDir(const std::string& what) {
  std::string pattern = (std::filesystem::temp_directory_path() / "jpblob-XXXXXX").string();
  if (!::mkdtemp(pattern.data())) throw errno_error("cannot make a scratch folder for " + what, errno);
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::filesystem::path ScratchDir::write(const std::string& name, std::string_view data) const {
  const std::filesystem::path file = path_ / name;
  Fd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
  if (!fd.valid()) throw errno_error("cannot create " + file.string(), errno);
  write_all(fd.get(), data, file.string());
  return file;
}

}  // namespace jpblob
