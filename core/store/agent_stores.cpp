#include "core/store/agent_stores.hpp"

#include <fcntl.h>
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

}  // namespace

AgentBlobStores AgentBlobStores::from_environment() {
  std::vector<fs::path> candidates;
  // oh-my-pi's own order (pi-utils' dirs.ts): an agent folder set by hand
  // wins; then XDG's data folder once oh-my-pi has moved there; then home.
  if (auto dir = environment("PI_CODING_AGENT_DIR")) candidates.push_back(fs::absolute(*dir) / "blobs");
  if (auto xdg = environment("XDG_DATA_HOME")) candidates.push_back(fs::path(*xdg) / "omp" / "blobs");
  if (auto home = environment("HOME"))
    candidates.push_back(fs::path(*home) / environment("PI_CONFIG_DIR").value_or(".omp") / "agent" / "blobs");
  std::vector<fs::path> folders;
  for (auto& c : candidates) {
    c = c.lexically_normal();
    if (is_folder(c) && std::find(folders.begin(), folders.end(), c) == folders.end()) folders.push_back(c);
  }
  return AgentBlobStores(std::move(folders));
}

std::string AgentBlobStores::describe() const {
  if (folders_.empty()) return "no oh-my-pi blob folder found ($PI_CODING_AGENT_DIR/blobs, ~/.omp/agent/blobs)";
  const auto home = environment("HOME");
  std::string out;
  for (const auto& f : folders_) {
    std::string name = f.string();
    if (home && name.starts_with(*home + "/")) name = "~" + name.substr(home->size());
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

std::optional<std::string> AgentBlobStores::fetch(const Digest& digest, std::uint64_t max_size,
                                                  std::string* problem) const {
  const std::string name = digest.hex();
  for (const auto& folder : folders_) {
    const fs::path file = folder / name;
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) continue;
    const Fd own(fd);
    struct stat st {};
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
