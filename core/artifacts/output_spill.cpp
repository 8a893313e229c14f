#include "core/artifacts/output_spill.hpp"

#include <unistd.h>

#include "core/base/error.hpp"

namespace jpblob {

void OutputSpill::write(std::string_view chunk) {
  if (chunk.empty()) return;
  total_ += chunk.size();
  if (file_) spill(chunk);
  buffer_.append(chunk);
  if (!truncated_ && buffer_.size() > threshold_) {
    truncated_ = true;
    try {
      file_ = open_artifact_();
      artifact_id_ = file_->id;
      spill(buffer_);  // everything so far, once; later chunks as they come
    } catch (const std::exception& e) {
      file_.reset();
      problem_ = std::string("could not save the whole output: ") + e.what();
    }
  }
  if (truncated_) trim();
}

void OutputSpill::spill(std::string_view bytes) {
  try {
    write_all(file_->fd.get(), bytes, file_->path.string());
  } catch (const Error& e) {
    // The file keeps what was written; say it is incomplete and stop.
    problem_ = std::string("artifact://") + file_->id + " is incomplete: " + e.what();
    file_.reset();
  }
}

void OutputSpill::trim() {
  // Amortized: cut only when the window has doubled.
  if (buffer_.size() <= 2 * threshold_) return;
  buffer_.erase(0, buffer_.size() - threshold_);
}

SpillSummary OutputSpill::finish() {
  SpillSummary s;
  if (file_) {
    if (::close(file_->fd.release()) != 0 && problem_.empty())
      problem_ = "artifact://" + file_->id + " is incomplete: cannot close " + file_->path.string();
    file_.reset();
  }
  if (truncated_ && buffer_.size() > threshold_) buffer_.erase(0, buffer_.size() - threshold_);
  // Start the tail on a character boundary: drop UTF-8 continuation bytes
  // the cut left at its front.
  std::size_t skip = 0;
  if (truncated_)
    while (skip < buffer_.size() && skip < 3 && (static_cast<unsigned char>(buffer_[skip]) & 0xC0) == 0x80) ++skip;
  s.tail = buffer_.substr(skip);
  s.total_bytes = total_;
  s.truncated = truncated_;
  s.artifact_id = artifact_id_;
  s.problem = problem_;
  return s;
}

std::string describe_spill(const SpillSummary& s, bool streamed) {
  if (!s.truncated) return {};
  const std::string shown =
      streamed ? "[Output of " + std::to_string(s.total_bytes) + " bytes."
               : "[Output truncated: showing the last " + std::to_string(s.tail.size()) + " of " +
                     std::to_string(s.total_bytes) + " bytes.";
  if (s.artifact_id && s.problem.empty()) return shown + " Full output: artifact://" + *s.artifact_id + "]";
  return shown + " " + s.problem + "]";
}

}  // namespace jpblob
