#include "core/artifacts/artifacts.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>

#include "core/base/error.hpp"
#include "core/git/git_repo.hpp"
#include "core/base/safe_path.hpp"
#include "core/artifacts/output_index.hpp"

namespace jpblob {

namespace fs = std::filesystem;

fs::path checked_artifacts_dir(const fs::path& session_file, const fs::path& cwd) {
  const fs::path dir = artifacts_dir_for(session_file);
  const auto repo = GitRepo::open(cwd);
  if (!repo || !repo->workdir()) return dir;
  const fs::path rel = fs::absolute(cwd / dir).lexically_normal().lexically_relative(*repo->workdir());
  if (rel.empty() || *rel.begin() == ".." || rel == ".") return dir;
  // lstat refuses a link at any folder on the way; the folder itself must
  // not be one either.
  const SafeDir top = SafeDir::open(*repo->workdir());
  if (const auto st = top.lstat(rel); st && S_ISLNK(st->st_mode)) throw Error(SafeDir::refusal(rel));
  return dir;
}

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The artifacts folder opened without following a link. The folder that
// holds the session file is the user's choice and trusted; the artifacts
// folder inside it is named by the session and may have been planted as a
// link by a repository: that is refused. An invalid Fd when it is missing
// and not to be created.
Fd open_folder(const fs::path& dir, bool create) { return open_artifacts_folder(dir, create); }

}  // namespace

Fd open_artifacts_folder(const fs::path& dir, bool create) {
  const fs::path parent = dir.has_parent_path() ? dir.parent_path() : fs::path(".");
  std::error_code ec;
  if (create) {
    fs::create_directories(parent, ec);
    if (ec) throw Error("cannot create the artifacts folder " + dir.string() + ": " + ec.message());
  } else if (!fs::is_directory(parent, ec)) {
    return Fd();
  }
  try {
    return SafeDir::open(parent).open_folder(dir.filename(), create ? SafeDir::Create::Yes : SafeDir::Create::No);
  } catch (const Error& e) {
    throw Error("cannot use the artifacts folder " + dir.string() + ": " + e.what());
  }
}

namespace {

// The names in a folder, or none when it is missing.
std::vector<std::string> entries(const fs::path& dir) {
  Fd fd = open_folder(dir, false);
  if (!fd.valid()) return {};
  return folder_names(fd.get(), dir.string());
}

// "<n>.<tool>.log" → n
std::optional<std::uint64_t> artifact_number(std::string_view name) {
  const auto dot = name.find('.');
  if (dot == std::string_view::npos || !is_valid_artifact_id(name.substr(0, dot)) || !name.ends_with(".log"))
    return std::nullopt;
  return std::stoull(std::string(name.substr(0, dot)));
}

// Whether an agent output id's last component is numbered ("Anna.3-C"):
// the allocator numbers only among those.
bool numbered_last(std::string_view id) {
  const auto last = id.rfind('.') == std::string_view::npos ? 0 : id.rfind('.') + 1;
  const auto dash = id.find('-', last);
  return dash != std::string_view::npos && is_valid_artifact_id(id.substr(last, dash - last));
}

// The index of an agent output id's last component: "0-P.12-C" → 12.
std::uint64_t agent_index(std::string_view id) {
  const auto last = id.rfind('.') == std::string_view::npos ? 0 : id.rfind('.') + 1;
  return std::stoull(std::string(id.substr(last, id.find('-', last) - last)));
}

// Whether an agent output id is a direct child of `parent` (top level when
// empty).
bool is_child_of(std::string_view id, std::string_view parent) {
  if (parent.empty()) return id.find('.') == std::string_view::npos;
  return id.size() > parent.size() + 1 && id.starts_with(parent) && id[parent.size()] == '.' &&
         id.substr(parent.size() + 1).find('.') == std::string_view::npos;
}

std::optional<std::string> agent_id_of(std::string_view name) {
  if (!name.ends_with(".md")) return std::nullopt;
  const std::string id(name.substr(0, name.size() - 3));
  if (!is_valid_agent_id(id)) return std::nullopt;
  return id;
}

// Creates `name` exclusively in the open folder `dir` (named `where` in
// messages). Returns an invalid Fd when the name is taken; throws on any
// other failure.
Fd create_exclusive(int dir, const fs::path& where, const std::string& name) {
  const int fd = syscalls().openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd >= 0) return Fd(fd);
  if (errno == EEXIST) return Fd();
  throw errno_error("cannot create " + (where / name).string(), errno);
}

}  // namespace

fs::path artifacts_dir_for(const fs::path& session_file) {
  const std::string name = session_file.filename().string();
  if (!name.ends_with(".jsonl") || name.size() == 6)
    throw Error("'" + session_file.string() + "' is not a session file (<stamp>_<id>.jsonl)", ErrorKind::Usage);
  return session_file.parent_path() / name.substr(0, name.size() - 6);
}

bool is_valid_name(std::string_view name) {
  return !name.empty() && name.size() <= 64 &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                  c == '-';
         });
}

bool is_valid_artifact_id(std::string_view id) { return id.size() <= 18 && all_digits(id); }

bool is_valid_agent_id(std::string_view id) {
  if (id.empty() || id.size() > 255) return false;
  // Each component is a name: "0-Reviewer" (git-jpblob's and older
  // oh-my-pi's numbered form) and "Anna", "Anna-2" (oh-my-pi's name-first
  // form since 2026) alike.
  std::size_t start = 0;
  for (;;) {
    const auto end = std::min(id.find('.', start), id.size());
    if (!is_valid_name(id.substr(start, end - start))) return false;
    if (end == id.size()) return true;
    start = end + 1;
  }
}

AllocatedFile ArtifactAllocator::allocate(std::string_view tool) {
  if (!is_valid_name(tool))
    throw Error("bad tool name '" + std::string(tool) + "': use 1-64 letters, digits, '_' or '-'", ErrorKind::Usage);
  const Fd dir = open_folder(dir_, true);
  if (!next_) {
    std::uint64_t next = 0;
    for (const auto& name : folder_names(dir.get(), dir_.string()))
      if (auto n = artifact_number(name)) next = std::max(next, *n + 1);
    // Numbers whose files gc removed stay taken: the index remembers them.
    // A damaged index must not stop the output being saved.
    try {
      next = std::max(next, read_output_index(dir.get(), dir_).next);
    } catch (const Error&) {
    }
    next_ = next;
  }
  for (int attempt = 0; attempt < 10000; ++attempt) {
    const std::string id = std::to_string((*next_)++);
    const std::string name = id + "." + std::string(tool) + ".log";
    Fd fd = create_exclusive(dir.get(), dir_, name);
    if (!fd.valid()) continue;
    // The claim holds only when no other file claims the same number.
    bool contested = false;
    for (const auto& other : folder_names(dir.get(), dir_.string()))
      if (other != name && other.starts_with(id + ".")) contested = true;
    if (contested) {
      ::unlinkat(dir.get(), name.c_str(), 0);
      continue;
    }
    return {id, dir_ / name, std::move(fd)};
  }
  throw Error("cannot allocate an artifact in " + dir_.string() + ": every number tried was taken");
}

AllocatedFile AgentOutputAllocator::allocate(std::string_view name, std::string_view parent) {
  if (!is_valid_name(name))
    throw Error("bad agent name '" + std::string(name) + "': use 1-64 letters, digits, '_' or '-'", ErrorKind::Usage);
  if (!parent.empty() && !is_valid_agent_id(parent))
    throw Error("bad parent agent id '" + std::string(parent) + "'", ErrorKind::Usage);
  const Fd dir = open_folder(dir_, true);
  const std::string prefix = parent.empty() ? std::string() : std::string(parent) + ".";
  // Numbering resumes after the highest sibling, rescanned on every call
  // (outputs are few), so other processes' outputs count too.
  std::uint64_t next = 0;
  for (const auto& entry : folder_names(dir.get(), dir_.string()))
    if (auto id = agent_id_of(entry); id && numbered_last(*id) && is_child_of(*id, parent))
      next = std::max(next, agent_index(*id) + 1);
  for (int attempt = 0; attempt < 10000; ++attempt, ++next) {
    const std::string number = std::to_string(next);
    const std::string id = prefix + number + "-" + std::string(name);
    if (id.size() > 255) throw Error("agent id too long: " + id, ErrorKind::Usage);
    const std::string file = id + ".md";
    Fd fd = create_exclusive(dir.get(), dir_, file);
    if (!fd.valid()) continue;
    bool contested = false;
    for (const auto& entry : folder_names(dir.get(), dir_.string()))
      if (auto other = agent_id_of(entry); other && *other != id && numbered_last(*other) &&
                                           is_child_of(*other, parent) && agent_index(*other) == next)
        contested = true;
    if (contested) {
      ::unlinkat(dir.get(), file.c_str(), 0);
      continue;
    }
    return {id, dir_ / file, std::move(fd)};
  }
  throw Error("cannot allocate an agent output in " + dir_.string() + ": every number tried was taken");
}

std::optional<std::string> artifact_file_name(const fs::path& dir, const std::string& id) {
  std::optional<std::string> best;
  auto rank = [](const std::string& n) { return std::make_pair(!n.ends_with(".log"), n); };
  for (const auto& name : entries(dir))
    if (name.starts_with(id + ".") && (!best || rank(name) < rank(*best))) best = name;
  return best;
}

std::vector<std::string> list_artifact_ids(const fs::path& dir) {
  std::vector<std::uint64_t> numbers;
  for (const auto& name : entries(dir))
    if (auto n = artifact_number(name)) numbers.push_back(*n);
  std::sort(numbers.begin(), numbers.end());
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  std::vector<std::string> out;
  for (auto n : numbers) out.push_back(std::to_string(n));
  return out;
}

std::vector<std::string> list_agent_ids(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& name : entries(dir))
    if (auto id = agent_id_of(name)) out.push_back(*id);
  std::sort(out.begin(), out.end());
  return out;
}

bool is_sensitive_path(const fs::path& path) {
  const std::string name = path.filename().string();
  if (name == ".env" || name.starts_with(".env.")) return true;
  if (name.ends_with(".pem") || name.ends_with("_key")) return true;
  return name == "config" && path.parent_path().filename() == ".git";
}

std::string read_artifact_file(const fs::path& dir, const std::string& name, const std::string& what) {
  if (name.find('/') != std::string::npos || name == "." || name == "..")
    throw Error(what + ": refusing the path " + name);
  if (is_sensitive_path(name)) throw Error(what + ": refusing to read " + name + ", a sensitive file");
  const fs::path path = dir / name;
  const Fd folder = open_folder(dir, false);
  if (!folder.valid()) throw errno_error(what + ": cannot read " + path.string(), ENOENT);
  struct stat st {};
  if (::fstatat(folder.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
    throw errno_error(what + ": cannot read " + path.string(), errno);
  fs::path target = path;
  Fd fd;
  if (!S_ISLNK(st.st_mode)) {
    // O_NONBLOCK: a FIFO planted under the name must not hang the reader.
    fd = Fd(::openat(folder.get(), name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  } else {
    // Resolve fully and require the result to stay inside the folder.
    char resolved[PATH_MAX], root[PATH_MAX];
    if (!::realpath(path.c_str(), resolved)) throw errno_error(what + ": cannot follow " + path.string(), errno);
    if (!::realpath(dir.c_str(), root)) throw errno_error(what + ": cannot resolve " + dir.string(), errno);
    const std::string r = resolved, base = std::string(root) + "/";
    if (!r.starts_with(base))
      throw Error(what + ": " + name + " is a symbolic link leading outside the artifacts folder (to " + r +
                  "); refused");
    target = r;
    if (is_sensitive_path(target)) throw Error(what + ": refusing to read " + r + ", a sensitive file");
    fd = Fd(::open(target.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  }
  if (!fd.valid()) throw errno_error(what + ": cannot open " + target.string(), errno);
  if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode))
    throw Error(what + ": " + name + " is not a regular file; refused");
  return read_all(fd.get(), path.string());
}

}  // namespace jpblob
