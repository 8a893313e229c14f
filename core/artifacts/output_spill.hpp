// The spill-to-file output sink (SPEC §8, seed blob-and-artifact-storage,
// "Tool output spill"): a long-running command's output is kept in memory
// up to a threshold; past it, the whole output goes to the next artifact
// file and only the last `threshold` bytes stay in memory, for display.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/artifacts/artifacts.hpp"

namespace jpblob {

// The seed's DEFAULT_MAX_BYTES.
inline constexpr std::size_t kSpillThreshold = 50 * 1024;

struct SpillSummary {
  std::string tail;              // the output, or its last `threshold` bytes
  std::uint64_t total_bytes = 0;
  bool truncated = false;        // tail is not the whole output
  std::optional<std::string> artifact_id;  // where the whole output is, when it was saved
  std::string problem;           // why the whole output was not saved, or is incomplete
};

class OutputSpill {
 public:
  // `open_artifact` allocates the artifact file when the output first
  // passes the threshold; when it throws, the sink keeps the tail alone
  // and says so in the summary.
  explicit OutputSpill(std::function<AllocatedFile()> open_artifact, std::size_t threshold = kSpillThreshold)
      : open_artifact_(std::move(open_artifact)), threshold_(threshold) {}

  void write(std::string_view chunk);
  // Ends the output: flushes and closes the artifact file.
  SpillSummary finish();

 private:
  void spill(std::string_view bytes);
  void trim();

  std::function<AllocatedFile()> open_artifact_;
  std::size_t threshold_;
  std::string buffer_;  // everything until the threshold, then a tail window
  std::uint64_t total_ = 0;
  bool truncated_ = false;
  std::optional<AllocatedFile> file_;
  std::optional<std::string> artifact_id_;
  std::string problem_;
};

// The line `git jpblob run` prints after a truncated output, saying where
// the whole of it is. `streamed`: the output was shown as it came, so the
// line does not speak of a tail. Empty when nothing was truncated.
std::string describe_spill(const SpillSummary& summary, bool streamed = false);

}  // namespace jpblob
