#include "progress.hpp"

#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <utility>

#include "cli/quiet.hpp"
#include "core/base/error.hpp"

namespace jpblob {

namespace {

// git's default: what its delay of two seconds always came to (the tick
// that counted one second down counted the next at once), kept when git
// fixed the count (git 2.51.1, "progress: pay attention to (customized)
// delay time").
constexpr std::chrono::seconds kGitDefaultDelay{1};

// A delay past this is "never" in any session; it keeps the arithmetic on
// time points clear of overflow.
constexpr std::uintmax_t kLongestDelay = 100ull * 365 * 24 * 3600;

}  // namespace

std::chrono::seconds git_progress_delay() {
  const char* text = std::getenv("GIT_PROGRESS_DELAY");
  if (!text) return kGitDefaultDelay;
  const Error bad("failed to parse GIT_PROGRESS_DELAY");
  // git's unsigned reading (git_parse_ulong): strtoumax would take "-1"
  // as the largest number, so any minus is refused first.
  if (!*text || std::strchr(text, '-')) throw bad;
  char* end = nullptr;
  errno = 0;
  std::uintmax_t value = std::strtoumax(text, &end, 0);
  if (errno == ERANGE || end == text) throw bad;
  std::uintmax_t factor = 0;
  if (!*end) factor = 1;
  else if (!::strcasecmp(end, "k")) factor = 1024;
  else if (!::strcasecmp(end, "m")) factor = 1024 * 1024;
  else if (!::strcasecmp(end, "g")) factor = 1024 * 1024 * 1024;
  if (!factor || value > UINTMAX_MAX / factor) throw bad;
  value *= factor;
  return std::chrono::seconds(std::min(value, kLongestDelay));
}

TerminalProgress::TerminalProgress() : TerminalProgress(stderr, ::isatty(STDERR_FILENO) == 1) {}

TerminalProgress::TerminalProgress(std::FILE* out, bool terminal, Clock clock)
    : out_(out), enabled_(terminal && !quiet()), clock_(std::move(clock)) {
  if (enabled_) delay_ = git_progress_delay();
}

TerminalProgress::~TerminalProgress() {
  std::lock_guard lock(mutex_);
  if (!drawn_) return;
  // Unwinding: the work stopped part way, so neither 100% nor "done" is true.
  if (std::uncaught_exceptions() > 0) std::fputs("\n", out_);
  else finish_phase();
  std::fflush(out_);
}

Progress TerminalProgress::callback() {
  if (!enabled_) return {};
  return [this](std::string_view what, std::size_t done, std::size_t total) { update(what, done, total); };
}

void TerminalProgress::finish_phase() {
  if (!drawn_) return;  // ended within the delay: git says nothing either
  // Updates are drawn only when the percentage changes, so the last one
  // drawn may be short of the total (97% (39/40)); the finished line says
  // what git's does.
  if (drawn_done_ != total_ || last_percent_ != 100)
    std::fprintf(out_, "\r%s: 100%% (%zu/%zu)", what_.c_str(), total_, total_);
  std::fputs(", done.\n", out_);
  drawn_ = false;
}

bool TerminalProgress::due(TimePoint now, int percent) const {
  if (!drawn_) return now - started_ >= delay_;
  // git draws on a new percentage, and on its timer's tick every second.
  return percent != last_percent_ || (done_ != drawn_done_ && now - drawn_at_ >= std::chrono::seconds(1));
}

void TerminalProgress::update(std::string_view what, std::size_t done, std::size_t total) {
  const TimePoint now = clock_();
  std::lock_guard lock(mutex_);
  if (what != what_) {
    finish_phase();
    what_ = what;
    started_ = now;
    last_percent_ = -1;
    done_ = drawn_done_ = 0;
  }
  // Workers report out of order: a count below one already reported is
  // old news, and drawing it would count backwards.
  if (done > done_) done_ = done;
  total_ = total;
  const int percent = total_ ? static_cast<int>(done_ * 100 / total_) : 100;
  if (!due(now, percent)) return;
  std::fprintf(out_, "\r%s: %3d%% (%zu/%zu)", what_.c_str(), percent, done_, total_);
  std::fflush(out_);
  drawn_ = true;
  drawn_at_ = now;
  last_percent_ = percent;
  drawn_done_ = done_;
}

}  // namespace jpblob
