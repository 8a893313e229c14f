#include "progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace jpblob {

TerminalProgress::TerminalProgress() : enabled_(::isatty(STDERR_FILENO) == 1) {}

TerminalProgress::~TerminalProgress() {
  if (enabled_ && !what_.empty()) std::fprintf(stderr, ", done.\n");
}

Progress TerminalProgress::callback() {
  if (!enabled_) return {};
  return [this](std::string_view what, std::size_t done, std::size_t total) { update(what, done, total); };
}

void TerminalProgress::update(std::string_view what, std::size_t done, std::size_t total) {
  std::lock_guard lock(mutex_);
  if (what != what_) {
    if (!what_.empty()) std::fprintf(stderr, ", done.\n");
    what_ = what;
    last_percent_ = -1;
  }
  const int percent = total ? static_cast<int>(done * 100 / total) : 100;
  if (percent == last_percent_) return;
  last_percent_ = percent;
  std::fprintf(stderr, "\r%s: %3d%% (%zu/%zu)", what_.c_str(), percent, done, total);
}

}  // namespace jpblob
