// A git-style progress line ("Verifying blobs:  45% (450/1000)") on a
// terminal, and nothing when the output is not one. Thread-safe.
//
// A phase ends when the next one starts or the object is destroyed; its line
// is then brought to "100% (total/total)" (the last update may have come
// before the end: the percentage is drawn only when it changes) and closed
// with ", done." Destroyed while an exception unwinds, it only ends the line:
// the phase did not finish.
#pragma once

#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

#include "core/base/progress.hpp"

namespace jpblob {

class TerminalProgress {
 public:
  // Draws on stderr when it is a terminal.
  TerminalProgress();
  // Draws on `out` (not owned; must outlive this object) when `terminal`
  // is true, and nothing otherwise. For tests.
  TerminalProgress(std::FILE* out, bool terminal);
  ~TerminalProgress();  // finishes an open phase (see above)
  TerminalProgress(const TerminalProgress&) = delete;
  TerminalProgress& operator=(const TerminalProgress&) = delete;

  // A callback drawing the line; empty (no work at all) when disabled.
  Progress callback();

 private:
  void update(std::string_view what, std::size_t done, std::size_t total);
  // Brings the open phase's line to total/total and closes it. Caller holds mutex_.
  void finish_phase();
  std::FILE* out_;
  bool enabled_;
  std::mutex mutex_;
  std::string what_;
  int last_percent_ = -1;
  std::size_t last_done_ = 0, last_total_ = 0;
};

}  // namespace jpblob
