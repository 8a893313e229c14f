#include "core/workspace/committed_form.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <system_error>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

constexpr const char* kName = "committed-form";

std::set<std::string> read_record(const fs::path& file) {
  std::set<std::string> out;
  std::error_code ec;
  if (!fs::exists(file, ec)) return out;
  const std::string text = read_file(file);
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    if (end > pos) out.insert(text.substr(pos, end - pos));
    pos = end + 1;
  }
  return out;
}

}  // namespace

CommittedFormRecord::CommittedFormRecord(fs::path git_dir) : folder_(std::move(git_dir) / "jpblob") {}

const std::set<std::string>& CommittedFormRecord::listed() const {
  if (!listed_) listed_ = read_record(folder_ / kName);
  return *listed_;
}

bool CommittedFormRecord::contains(const std::string& path) const {
  std::lock_guard lock(mutex_);
  if (const auto it = notes_.find(path); it != notes_.end()) return it->second;
  return listed().count(path) > 0;
}

void CommittedFormRecord::note(const std::string& path, bool committed) {
  if (path.find('\n') != std::string::npos) return;
  std::lock_guard lock(mutex_);
  // A note that changes nothing need not be written.
  if (!notes_.count(path) && listed().count(path) == (committed ? 1u : 0u)) return;
  notes_[path] = committed;
}

void CommittedFormRecord::flush() {
  std::lock_guard lock(mutex_);
  if (notes_.empty()) return;
  std::error_code ec;
  fs::create_directories(folder_, ec);
  if (ec) throw Error("cannot create " + folder_.string() + ": " + ec.message());
  const fs::path lock_path = folder_ / (std::string(kName) + ".lock");
  Fd lock_fd(::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666));
  if (!lock_fd.valid()) throw Error("cannot open " + lock_path.string() + ": " + std::strerror(errno));
  while (::flock(lock_fd.get(), LOCK_EX) != 0)
    if (errno != EINTR) throw Error("cannot lock " + lock_path.string() + ": " + std::strerror(errno));
  // Another process may have changed the file since it was read: merge
  // into what it holds now.
  std::set<std::string> now = read_record(folder_ / kName);
  for (const auto& [path, committed] : notes_) {
    if (committed) now.insert(path);
    else now.erase(path);
  }
  std::string text;
  for (const std::string& p : now) text.append(p).push_back('\n');
  write_file_atomic(folder_ / kName, text);
  listed_ = std::move(now);
  notes_.clear();
}

}  // namespace jpblob
