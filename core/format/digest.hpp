// SHA-256 digests: the names of blobs.
//
// A Digest can only be built from 32 raw bytes or from exactly 64 lowercase
// hex characters, so every store path derived from one is safe by
// construction (no "../", no separators, no upper case aliases).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jpblob {

class Digest {
 public:
  using Bytes = std::array<std::uint8_t, 32>;

  explicit Digest(const Bytes& bytes) : bytes_(bytes) {}

  // Parses 64 lowercase hex characters. Anything else (upper case, wrong
  // length, "../") gives nullopt.
  static std::optional<Digest> from_hex(std::string_view hex);

  std::string hex() const;
  const Bytes& bytes() const { return bytes_; }

  friend bool operator==(const Digest&, const Digest&) = default;
  friend auto operator<=>(const Digest&, const Digest&) = default;

 private:
  Bytes bytes_;
};

// True when `text` is exactly 64 lowercase hex characters.
bool is_digest_hex(std::string_view text);

struct DigestHash {
  std::size_t operator()(const Digest& d) const noexcept {
    std::size_t h;
    static_assert(sizeof(h) <= 32);
    __builtin_memcpy(&h, d.bytes().data(), sizeof(h));
    return h;
  }
};

// Incremental SHA-256 through OpenSSL EVP. Not thread-safe; one per thread.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void update(std::string_view data);
  // Finishes the hash. The object must not be updated afterwards.
  Digest finish();

  static Digest of(std::string_view data);

 private:
  void* ctx_;  // EVP_MD_CTX*, kept opaque so OpenSSL headers stay out of ours
};

}  // namespace jpblob
