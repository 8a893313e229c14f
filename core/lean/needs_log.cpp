#include "core/lean/needs_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <charconv>
#include <random>

#include "core/base/error.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kSuffix = ".log";
// The version of what a record answers: document_needs' references for
// the text. Raised whenever that answer changes for some text, so that a
// log an older git-jpblob wrote before an upgrade is never taken for the
// new answer (gc removes it; the hook only reads its own version's).
// n2: the agent's reference-shaped objects are no references (issue 44).
constexpr std::string_view kVersion = "n2-";

char kind_letter(DocumentKind kind) { return kind == DocumentKind::Conversation ? 'c' : 's'; }

// The next space-separated field of `line` (which `pos` walks), or nothing.
std::string_view field(std::string_view line, std::size_t& pos) {
  if (pos > line.size()) return {};
  const std::size_t end = std::min(line.find(' ', pos), line.size());
  const std::string_view out = line.substr(pos, end - pos);
  pos = end + 1;
  return out;
}

bool number(std::string_view text, std::uint64_t& out) {
  if (text.empty() || text.size() > 20) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool is_object_id(std::string_view text) {
  if (text.size() != 40 && text.size() != 64) return false;
  for (const char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// One line, without its newline; false when any part of it is not as
// needs_log_line writes it.
bool parse_line(std::string_view line, std::string& id, RecordedNeeds& out) {
  std::size_t pos = 0;
  const std::string_view hex = field(line, pos), kind = field(line, pos);
  std::uint64_t count = 0;
  if (!is_object_id(hex) || kind.size() != 1 || (kind[0] != 'c' && kind[0] != 's')) return false;
  if (!number(field(line, pos), out.min_size) || !number(field(line, pos), out.size) ||
      !number(field(line, pos), count))
    return false;
  out.kind = kind[0] == 'c' ? DocumentKind::Conversation : DocumentKind::Session;
  if (count > line.size() / 66) return false;  // each reference takes 66 characters at least
  out.references.clear();
  out.references.reserve(count);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::string_view ref = field(line, pos);
    if (ref.size() < 66 || ref[64] != ':') return false;
    auto digest = Digest::from_hex(ref.substr(0, 64));
    if (!digest) return false;
    BlobUse use{*digest, std::nullopt};
    if (const std::string_view size = ref.substr(65); size != "-") {
      std::uint64_t n = 0;
      if (!number(size, n)) return false;
      use.size = n;
    }
    out.references.push_back(use);
  }
  if (pos <= line.size()) return false;  // more than the count said
  id.assign(hex);
  return true;
}

}  // namespace

fs::path needs_log_folder(const fs::path& common_dir) { return common_dir / "jpblob" / "needs"; }

std::string needs_log_line(const std::string& id, const RecordedNeeds& needs) {
  std::string line = id;
  line.push_back(' ');
  line.push_back(kind_letter(needs.kind));
  line.append(" ").append(std::to_string(needs.min_size));
  line.append(" ").append(std::to_string(needs.size));
  line.append(" ").append(std::to_string(needs.references.size()));
  for (const BlobUse& ref : needs.references) {
    line.append(" ").append(ref.digest.hex()).push_back(':');
    line.append(ref.size ? std::to_string(*ref.size) : "-");
  }
  line.push_back('\n');
  return line;
}

NeedsLog::NeedsLog(fs::path folder) : folder_(std::move(folder)) {}

void NeedsLog::note(const std::string& id, const RecordedNeeds& needs) {
  const std::string line = needs_log_line(id, needs);
  const std::lock_guard<std::mutex> hold(mutex_);
  if (failed_) return;
  try {
    if (!fd_.valid()) {
      std::error_code ec;
      fs::create_directories(folder_, ec);
      std::random_device random;
      const fs::path file =
          folder_ / (std::string(kVersion) + std::to_string(::getpid()) + "-" + std::to_string(random()) +
                     std::string(kSuffix));
      Fd fd(::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0666));
      if (!fd.valid()) throw errno_error("cannot record what the cleaned files reference in " + file.string(), errno);
      fd_ = std::move(fd);
    }
    // One write a line: should it fail partway, the rest of the log is
    // given up, so a reader never sees a line after a cut one.
    write_all(fd_.get(), line, "the record of what the cleaned files reference");
  } catch (const Error&) {
    failed_ = true;
    throw;
  }
}

void parse_needs_log(std::string_view text, std::unordered_map<std::string, RecordedNeeds>& into) {
  std::string id;
  RecordedNeeds needs;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) break;  // cut short: not a record
    if (parse_line(text.substr(start, end - start), id, needs)) into[id] = std::move(needs);
    start = end + 1;
  }
}

std::vector<fs::path> list_needs_logs(const fs::path& folder) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().filename().string().ends_with(kSuffix)) out.push_back(it->path());
  return out;
}

std::unordered_map<std::string, RecordedNeeds> read_needs_logs(const fs::path& folder, std::vector<fs::path>& files) {
  std::unordered_map<std::string, RecordedNeeds> out;
  for (const fs::path& path : list_needs_logs(folder)) {
    if (!path.filename().string().starts_with(kVersion)) continue;  // another version's
    // Not blocking: a FIFO of that name must not hold the commit up.
    Fd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    struct stat st {};
    if (!fd.valid() || ::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    try {
      parse_needs_log(read_all(fd.get(), path.string()), out);
      files.push_back(path);
    } catch (const Error&) {
      // unreadable: its documents are read from git's objects
    }
  }
  return out;
}

void remove_needs_logs(const std::vector<fs::path>& files) {
  for (const fs::path& f : files) ::unlink(f.c_str());
}

}  // namespace jpblob
