#include "core/base/safe_path.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <cerrno>

#include "core/base/error.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

// The components of a relative path; "" and "." name the base itself.
std::vector<std::string> components(const fs::path& rel) {
  if (rel.is_absolute()) throw Error("internal: " + rel.string() + " is not a relative path");
  std::vector<std::string> out;
  for (const auto& part : rel) {
    const std::string p = part.string();
    if (p.empty() || p == ".") continue;
    if (p == "..") throw Error("internal: " + rel.string() + " leaves its folder");
    out.push_back(p);
  }
  return out;
}

fs::path joined(const std::vector<std::string>& parts, std::size_t count) {
  fs::path p;
  for (std::size_t i = 0; i < count; ++i) p /= parts[i];
  return p;
}

// Why `name` in `dir` could not be opened as a folder: a link, something
// else, or an ordinary error.
[[noreturn]] void refuse_folder(int dir, const std::string& name, const fs::path& rel, int err) {
  struct stat st {};
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode)) throw Error(SafeDir::refusal(rel));
    if (!S_ISDIR(st.st_mode)) throw Error("cannot use " + rel.string() + ": it is not a folder");
  }
  throw errno_error("cannot open " + rel.string(), err);
}

Fd open_dir_at(int dir, const std::string& name) {
  return Fd(::openat(dir, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
}

}  // namespace

std::string SafeDir::refusal(const fs::path& rel) {
  return "refusing " + rel.string() + ": it is a symbolic link (git-jpblob never follows links inside a repository)";
}

SafeDir SafeDir::open(const fs::path& base) {
  Fd fd(::open(base.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) throw errno_error("cannot open folder " + base.string(), errno);
  return SafeDir(base, std::move(fd));
}

Fd SafeDir::open_folder(const fs::path& rel, Create create) const {
  const auto parts = components(rel);
  Fd current(::dup(fd()));
  if (!current.valid()) throw errno_error("cannot open " + path_.string(), errno);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    Fd next = open_dir_at(current.get(), parts[i]);
    if (!next.valid() && errno == ENOENT && create == Create::Yes) {
      if (syscalls().mkdirat(current.get(), parts[i].c_str(), 0777) != 0 && errno != EEXIST)
        throw errno_error("cannot create folder " + joined(parts, i + 1).string(), errno);
      next = open_dir_at(current.get(), parts[i]);
    }
    if (!next.valid()) {
      if (errno == ENOENT) return Fd();
      refuse_folder(current.get(), parts[i], joined(parts, i + 1), errno);
    }
    current = std::move(next);
  }
  return current;
}

std::pair<Fd, std::string> SafeDir::open_parent(const fs::path& rel, Create create) const {
  auto parts = components(rel);
  if (parts.empty()) throw Error("internal: " + rel.string() + " names no file");
  const std::string name = parts.back();
  parts.pop_back();
  return {open_folder(joined(parts, parts.size()), create), name};
}

Fd SafeDir::open_file(const fs::path& rel, int flags, mode_t mode) const {
  auto [dir, name] = open_parent(rel, (flags & O_CREAT) ? Create::Yes : Create::No);
  if (!dir.valid()) {
    errno = ENOENT;
    return Fd();
  }
  Fd fd(syscalls().openat(dir.get(), name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode));
  if (!fd.valid() && errno == ELOOP) throw Error(refusal(rel));
  return fd;
}

std::optional<std::string> SafeDir::read(const fs::path& rel, std::uint64_t max_size) const {
  // O_NONBLOCK: a FIFO planted under the name must not hang the reader.
  Fd fd = open_file(rel, O_RDONLY | O_NONBLOCK);
  if (!fd.valid()) {
    if (errno == ENOENT) return std::nullopt;
    throw errno_error("cannot open " + rel.string(), errno);
  }
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw errno_error("cannot read " + rel.string(), errno);
  if (!S_ISREG(st.st_mode)) throw Error("cannot read " + rel.string() + ": it is not a regular file");
  return read_all(fd.get(), (path_ / rel).string(), max_size);
}

void SafeDir::write_atomic(const fs::path& rel, std::string_view data, std::optional<mode_t> mode) const {
  auto [dir, name] = open_parent(rel, Create::Yes);
  mode_t bits = 0666;
  struct stat st {};
  if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode)) throw Error(refusal(rel));
    bits = st.st_mode & 07777;
  }
  AtomicFile file(dir.get(), name, (path_ / rel).string(), mode.value_or(bits));
  file.write(data);
  // The umask applied at creation: set the bits asked for exactly.
  if (mode) file.set_mode(*mode);
  file.commit();
}

std::optional<struct stat> SafeDir::lstat(const fs::path& rel) const {
  auto parts = components(rel);
  if (parts.empty()) {
    struct stat st {};
    if (::fstat(fd(), &st) != 0) throw errno_error("cannot read " + path_.string(), errno);
    return st;
  }
  auto [dir, name] = open_parent(rel, Create::No);
  if (!dir.valid()) return std::nullopt;
  struct stat st {};
  if (::fstatat(dir.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return std::nullopt;
    throw errno_error("cannot read " + rel.string(), errno);
  }
  return st;
}

bool SafeDir::remove(const fs::path& rel) const {
  auto [dir, name] = open_parent(rel, Create::No);
  if (!dir.valid()) return false;
  if (::unlinkat(dir.get(), name.c_str(), 0) == 0) return true;
  if (errno == ENOENT) return false;
  throw errno_error("cannot remove " + rel.string(), errno);
}

void SafeDir::rename(const fs::path& from, const fs::path& to) const {
  auto [from_dir, from_name] = open_parent(from, Create::No);
  auto [to_dir, to_name] = open_parent(to, Create::Yes);
  if (!from_dir.valid() || syscalls().renameat(from_dir.get(), from_name.c_str(), to_dir.get(), to_name.c_str()) != 0)
    throw errno_error("cannot rename " + from.string() + " to " + to.string(), from_dir.valid() ? errno : ENOENT);
}

void SafeDir::find_files(const fs::path& rel, const std::function<bool(const std::string& name)>& keep,
                         std::vector<fs::path>& out, Depth depth) const {
  Fd start = open_folder(rel);
  if (!start.valid()) return;
  const std::size_t first = out.size();
  // Depth first over open descriptors: nothing below `rel` is ever
  // resolved by path again. A folder waiting to be walked is its parent's
  // descriptor and its name, opened only when its turn comes: a folder of
  // 50,000 conversations holds one descriptor, not 50,000 (at most one a
  // level is open at once, whatever the folders hold).
  struct Pending {
    std::shared_ptr<const Fd> parent;
    std::string name;
    fs::path rel;
  };
  std::vector<Pending> stack;
  auto walk = [&](const std::shared_ptr<const Fd>& dir, const fs::path& dir_rel) {
    for (const std::string& name : folder_names(dir->get(), (path_ / dir_rel).string())) {
      const fs::path child = dir_rel / name;
      struct stat st {};
      if (::fstatat(dir->get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) continue;  // removed meanwhile
        throw errno_error("cannot read " + child.string(), errno);
      }
      if (depth == Depth::One && (S_ISLNK(st.st_mode) || S_ISDIR(st.st_mode))) continue;
      if (S_ISLNK(st.st_mode)) {
        // Refused when it would have been read, or walked had it been a
        // folder; another link is not ours and is never opened.
        struct stat target {};
        const bool to_folder = ::fstatat(dir->get(), name.c_str(), &target, 0) == 0 && S_ISDIR(target.st_mode);
        if (to_folder || keep(name)) throw Error(refusal(child));
        continue;
      }
      if (S_ISDIR(st.st_mode)) {
        stack.push_back({dir, name, child});
      } else if (S_ISREG(st.st_mode) && keep(name)) {
        out.push_back(child);
      }
    }
  };
  fs::path first_rel = rel.lexically_normal();
  if (first_rel == ".") first_rel.clear();
  walk(std::make_shared<const Fd>(std::move(start)), first_rel);
  while (!stack.empty()) {
    Pending folder = std::move(stack.back());
    stack.pop_back();
    Fd sub = open_dir_at(folder.parent->get(), folder.name);
    if (!sub.valid()) {
      if (errno == ENOENT) continue;
      refuse_folder(folder.parent->get(), folder.name, folder.rel, errno);
    }
    folder.parent.reset();  // the last child of its parent lets it close
    walk(std::make_shared<const Fd>(std::move(sub)), folder.rel);
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
}

SafeLocation locate_safely(const fs::path& path, const fs::path& top) {
  const fs::path p = fs::absolute(path).lexically_normal();
  const fs::path rel = p.lexically_relative(fs::absolute(top).lexically_normal());
  if (!rel.empty() && *rel.begin() != "..") return {SafeDir::open(top), rel};
  return {SafeDir::open(p.parent_path()), p.filename()};
}

}  // namespace jpblob
