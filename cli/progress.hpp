// A git-style progress line ("Verifying blobs:  45% (450/1000)") on a
// terminal, and nothing when the output is not one or under -q
// (cli/quiet). Thread-safe.
//
// As git's delayed progress (progress.c, start_delayed_progress), a phase
// is drawn only once git's delay has passed since its first report
// (git_progress_delay()): a phase that ends sooner prints nothing at all.
// The count drawn never goes down: workers report finished items out of
// order (a thread counts 141 after another drew 150), and only the highest
// count reported so far is drawn. The line is drawn again when its
// percentage changes, and at most once a second otherwise, as git's is.
//
// A phase ends when the next one starts or the object is destroyed; a
// phase that was drawn is then brought to "100% (total/total)" (the last
// update may have come before the end: the percentage is drawn only when it
// changes) and closed with ", done." Destroyed while an exception unwinds,
// it only ends the line: the phase did not finish.
#pragma once

#include <chrono>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>

#include "core/base/progress.hpp"

namespace jpblob {

// git's delay before a progress line shows: GIT_PROGRESS_DELAY seconds,
// read as git reads it (an unsigned number, decimal, 0x hex or 0 octal,
// with an optional k, m or g), else one second (git's default since 2.51.1,
// and what its nominal two seconds always came to before). Throws Error
// "failed to parse GIT_PROGRESS_DELAY" where git dies with that message.
std::chrono::seconds git_progress_delay();

class TerminalProgress {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // Draws on stderr when it is a terminal, after git_progress_delay()
  // (read only then, so a malformed value fails only a command that would
  // draw).
  TerminalProgress();
  // Draws on `out` (not owned; must outlive this object) when `terminal`
  // is true, and nothing otherwise, with the time read from `clock`. For
  // tests. Either draws nothing under -q (quiet()).
  TerminalProgress(std::FILE* out, bool terminal, Clock clock = std::chrono::steady_clock::now);
  ~TerminalProgress();  // finishes an open phase (see above)
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  // A callback drawing the line; empty (no work at all) when disabled.
  // `done` is how many of `total` items have finished, in any order.
  Progress callback();

 private:
  using TimePoint = std::chrono::steady_clock::time_point;
  void update(std::string_view what, std::size_t done, std::size_t total);
  // Whether the open phase's line is due now. Caller holds mutex_.
  bool due(TimePoint now, int percent) const;
  // Brings the open phase's line, if drawn, to total/total and closes it.
  // Caller holds mutex_.
  void finish_phase();
  std::FILE* out_;
  bool enabled_;
  Clock clock_;
  std::chrono::seconds delay_{0};
  std::mutex mutex_;
  std::string what_;
  TimePoint started_{}, drawn_at_{};
  bool drawn_ = false;  // the open phase has shown a line
  int last_percent_ = -1;
  std::size_t done_ = 0, drawn_done_ = 0, total_ = 0;
};

}  // namespace jpblob
