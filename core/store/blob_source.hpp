// Where smudge and every reader get blob bytes: the interface the store,
// its kept copies and git's objects answer behind (core/store/blob_lookup).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/format/digest.hpp"
#include "core/store/blob_store.hpp"

namespace jpblob {

// Where smudge gets blob bytes. fetch() returns the verified bytes of the
// blob (of `size` bytes when a size is declared), nullopt when no copy
// exists, and throws Error when a copy exists but is corrupt. It is called
// from several threads at once.
class BlobSource {
 public:
  virtual ~BlobSource() = default;
  virtual std::optional<std::string> fetch(const Digest& digest,
                                           std::optional<std::uint64_t> size) const = 0;
};

// A BlobSource reading a BlobStore.
class StoreBlobSource : public BlobSource {
 public:
  explicit StoreBlobSource(const BlobStore& store) : store_(store) {}
  std::optional<std::string> fetch(const Digest& digest,
                                   std::optional<std::uint64_t> size) const override {
    return store_.get(digest, size);
  }

 private:
  const BlobStore& store_;
};

}  // namespace jpblob
