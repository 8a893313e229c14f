// Where clean puts the blobs it makes. The store is one such place; a lean
// work tree's new blobs go elsewhere (core/lean/new_blobs), and the
// transforms write through this interface without knowing which.
#pragma once

#include <string_view>
#include <vector>

#include "core/format/digest.hpp"

namespace jpblob {

// What storing one blob did.
struct BlobPut {
  Digest digest;
  bool written;  // false when the blob was already there (or held elsewhere)
};

class BlobSink {
 public:
  virtual ~BlobSink() = default;
  // Stores every payload, skipping those already present; results in the
  // order of `payloads`, `written` true only for the first of equal
  // payloads, and only when its file was new. Thread-safe. Throws Error
  // when a payload cannot be stored; what was stored before stays.
  virtual std::vector<BlobPut> put_all(const std::vector<std::string_view>& payloads) const = 0;
};

}  // namespace jpblob
