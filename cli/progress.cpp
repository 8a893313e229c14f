#include "progress.hpp"

#include "cli/quiet.hpp"

#include <unistd.h>

#include <exception>

namespace jpblob {

TerminalProgress::TerminalProgress() : TerminalProgress(stderr, ::isatty(STDERR_FILENO) == 1) {}

TerminalProgress::TerminalProgress(std::FILE* out, bool terminal) : out_(out), enabled_(terminal && !quiet()) {}

TerminalProgress::~TerminalProgress() {
  std::lock_guard lock(mutex_);
  if (!enabled_ || what_.empty()) return;
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
  // Updates are drawn only when the percentage changes, so the last one
  // drawn may be short of the total (97% (39/40)); the finished line says
  // what git's does.
  if (last_done_ != last_total_ || last_percent_ != 100)
    std::fprintf(out_, "\r%s: 100%% (%zu/%zu)", what_.c_str(), last_total_, last_total_);
  std::fputs(", done.\n", out_);
}

void TerminalProgress::update(std::string_view what, std::size_t done, std::size_t total) {
  std::lock_guard lock(mutex_);
  if (what != what_) {
    if (!what_.empty()) finish_phase();
    what_ = what;
    last_percent_ = -1;
  }
  last_done_ = done;
  last_total_ = total;
  const int percent = total ? static_cast<int>(done * 100 / total) : 100;
  if (percent == last_percent_) return;
  last_percent_ = percent;
  std::fprintf(out_, "\r%s: %3d%% (%zu/%zu)", what_.c_str(), percent, done, total);
}

}  // namespace jpblob
