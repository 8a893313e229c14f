#include "core/store/restore_budget.hpp"


namespace jpblob {

void RestoreBudget::charge(std::uint64_t bytes, const Digest* digest) {
  std::uint64_t now = used_.load();
  do {
    if (bytes > limit_ || now > limit_ - bytes) {
      std::string why = path_ + " would expand to more than " + std::to_string(limit_) +
                        " bytes (jpblob.maxBlobSize) when its references are restored";
      if (digest) why += " (blob " + digest->hex() + " adds " + std::to_string(bytes) + ")";
      throw TooLargeToRestore(why + "; stopped before reading them. Raise jpblob.maxBlobSize if the file is genuine");
    }
  } while (!used_.compare_exchange_weak(now, now + bytes));
}

std::string too_large_to_restore(const std::string& path, std::uint64_t size, std::uint64_t limit) {
  return path + " is " + std::to_string(size) + " bytes, more than jpblob.maxBlobSize (" +
         std::to_string(limit) + ") lets smudge restore; raise it with `git config jpblob.maxBlobSize <size>` "
         "(in every clone) to add it";
}

}  // namespace jpblob
