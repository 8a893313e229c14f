#include "core/store/agent_stores.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

std::optional<std::string> environment(const char* name) {
  const char* value = std::getenv(name);
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

bool is_folder(const fs::path& path) {
  std::error_code ec;
  return fs::is_directory(path, ec);
}

// The home folder as oh-my-pi finds it (Node's os.homedir()): $HOME, or
// the account's when that is unset or empty (a hook run by a service).
std::optional<fs::path> home_folder() {
  if (auto home = environment("HOME")) return fs::path(*home);
  std::vector<char> buffer(16384);
  struct passwd entry {};
  struct passwd* found = nullptr;
  if (::getpwuid_r(::getuid(), &entry, buffer.data(), buffer.size(), &found) != 0 || !found || !found->pw_dir ||
      !*found->pw_dir)
    return std::nullopt;
  return fs::path(found->pw_dir);
}

// The agent folder of each oh-my-pi profile under `root`
// (<root>/profiles/<name>/<below>): `omp --profile <name>` or $OMP_PROFILE
// keeps its own store there, and a commit's environment need not name it.
void add_profiles(const fs::path& root, const fs::path& below, std::vector<fs::path>& out) {
  std::error_code ec;
  for (fs::directory_iterator it(root / "profiles", ec), end; !ec && it != end; it.increment(ec))
    out.push_back(it->path() / below);
}

// $PI_CODING_AGENT_DIR, which oh-my-pi resolves against the folder it ran
// in: when relative, against the folder the commit was made in (git tells
// hooks as $GIT_PREFIX, relative to the top, where hooks run) and the top.
void add_agent_dir(const std::string& dir, std::vector<fs::path>& out) {
  const auto add = [&out](const fs::path& folder) {
    std::error_code ec;  // no current folder: nothing relative to it
    if (auto full = fs::absolute(folder, ec); !ec) out.push_back(full / "blobs");
  };
  if (auto prefix = environment("GIT_PREFIX"); prefix && fs::path(dir).is_relative()) add(fs::path(*prefix) / dir);
  add(dir);
}

}  // namespace

AgentBlobStores AgentBlobStores::from_environment() {
  std::vector<fs::path> candidates;
  // oh-my-pi's own order (pi-utils' dirs.ts): an agent folder set by hand
  // wins; then XDG's data folder once oh-my-pi has moved there; then home.
  // Its profiles' folders last.
  if (auto dir = environment("PI_CODING_AGENT_DIR")) add_agent_dir(*dir, candidates);
  const auto xdg = environment("XDG_DATA_HOME");
  if (xdg) candidates.push_back(fs::path(*xdg) / "omp" / "blobs");
  const auto home = home_folder();
  // Joined to the home folder as Node's path.join does: an absolute
  // PI_CONFIG_DIR names a folder below home too.
  const fs::path config = fs::path(environment("PI_CONFIG_DIR").value_or(".omp")).relative_path();
  if (home) candidates.push_back(*home / config / "agent" / "blobs");
  if (xdg) add_profiles(fs::path(*xdg) / "omp", "blobs", candidates);
  if (home) add_profiles(*home / config, fs::path("agent") / "blobs", candidates);
  std::vector<fs::path> folders;
  for (auto& c : candidates) {
    c = c.lexically_normal();
    if (is_folder(c) && std::find(folders.begin(), folders.end(), c) == folders.end()) folders.push_back(c);
  }
  return AgentBlobStores(std::move(folders));
}

std::string AgentBlobStores::describe() const {
  if (folders_.empty()) return "no oh-my-pi blob folder found ($PI_CODING_AGENT_DIR/blobs, ~/.omp/agent/blobs)";
  const auto home = home_folder();  // the ~ the folders were found below
  std::string out;
  for (const auto& f : folders_) {
    std::string name = f.string();
    if (home && name.starts_with(home->string() + "/")) name = "~" + name.substr(home->string().size());
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

std::optional<std::string> AgentBlobStores::fetch(const Digest& digest, std::uint64_t max_size,
                                                  std::string* problem) const {
  const std::string name = digest.hex();
  for (const auto& folder : folders_) {
    const fs::path file = folder / name;
    // Only a regular file is opened (a device or a FIFO named so is never
    // opened), and checked again once open, in case it was swapped.
    struct stat st {};
    if (::stat(file.c_str(), &st) != 0) continue;
    if (!S_ISREG(st.st_mode)) {
      if (problem) *problem = file.string() + " is not a regular file";
      continue;
    }
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) continue;
    const Fd own(fd);
    try {
      if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) throw Error(file.string() + " is not a regular file");
      std::string bytes = read_all(fd, file.string(), max_size);
      if (Sha256::of(bytes) != digest)
        throw Error(file.string() + " does not hold the blob its name says (its content hashes to " +
                    Sha256::of(bytes).hex() + ")");
      return bytes;
    } catch (const Error& e) {
      if (problem) *problem = e.what();
    }
  }
  return std::nullopt;
}

}  // namespace jpblob
