// What one restored file may grow to (docs/FORMAT.md, "Bounds").
//
// A reference is input written by someone else: a few kilobytes of
// references to one highly compressible blob would otherwise ask smudge for
// gigabytes. Smudge charges the budget with what each restored value adds
// to the file *before* it fetches or appends it, so a file that would pass
// the limit fails at once, naming the file and the setting, having
// allocated almost nothing. Clean refuses a file over the same limit, so
// everything clean accepts, smudge can give back.
//
// Bounds before bytes, measured by e2e hostile_repos (each under 300 MB
// now): a 6 KB reference bomb's clone 13 MB (3.5 GB before), a text
// reference to 50 MB of control bytes 59 MB (8.8 GB for 1 GB), five million
// numbers in one event 90 MB (6.7 GB for a hundred million; one JSON scan
// keeps at most 2^20 values), `git show` of 60 MB of newlines 59 MB (8.4 GB
// for 200 MB). textconv shows a blob's first MiB, and nothing of one over
// core.bigFileThreshold: a 300 MB blob of zeros cost `git show` 312 MB and
// printed 1 MB, now 13 MB and 1.3 KB (e2e big_blobs). Checks keep no blob
// whole (BlobStore check_blob); only readers that give the content on
// (smudge, `checkout`, textconv) do.
//
// Thread safety: charge() may be called from several threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "core/format/digest.hpp"
#include "core/base/error.hpp"

namespace jpblob {

// The Error charge() throws: a display (keep_missing) shows such a file as
// committed instead of failing git's command.
class TooLargeToRestore : public Error {
 public:
  using Error::Error;
};

class RestoreBudget {
 public:
  // `limit` is jpblob.maxBlobSize; `path` names the file in messages.
  RestoreBudget(std::uint64_t limit, std::string path) : limit_(limit), path_(std::move(path)) {}

  // Adds `bytes` to what the file is restored to. Throws TooLargeToRestore once the
  // total passes the limit, naming `digest` when the bytes are one blob's;
  // nothing is charged then.
  void charge(std::uint64_t bytes, const Digest* digest = nullptr);

  std::uint64_t used() const { return used_; }

 private:
  std::uint64_t limit_;
  std::string path_;
  std::atomic<std::uint64_t> used_{0};
};

// The message of a file clean refuses because smudge could not give it
// back: `size` bytes, more than `limit`.
std::string too_large_to_restore(const std::string& path, std::uint64_t size, std::uint64_t limit);

// How many bytes a JSON string of standard or URL-safe base64 of `n` bytes
// takes, quotes included; UINT64_MAX when that does not fit (a hostile
// declared size must not wrap around to a small one).
constexpr std::uint64_t quoted_base64_length(std::uint64_t n) {
  constexpr std::uint64_t kMax = ~std::uint64_t{0};
  if (n > (kMax - 6) / 4 * 3) return kMax;
  return n / 3 * 4 + (n % 3 ? 4 : 0) + 2;
}

}  // namespace jpblob
