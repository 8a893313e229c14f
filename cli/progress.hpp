// A git-style progress line ("Verifying blobs:  45% (450/1000)") on a
// terminal, and nothing when stderr is not one. Thread-safe.
#pragma once

#include <mutex>
#include <string>
#include <string_view>

#include "core/progress.hpp"

namespace jpblob {

class TerminalProgress {
 public:
  TerminalProgress();
  ~TerminalProgress();  // ends an open line with ", done."
  Progress callback();

 private:
  void update(std::string_view what, std::size_t done, std::size_t total);
  bool enabled_;
  std::mutex mutex_;
  std::string what_;
  int last_percent_ = -1;
};

}  // namespace jpblob
