// A running hash in the repository's object format (SHA-1 or SHA-256):
// object ids, a pack's checksum, an index file's checksum.
#pragma once

#include <openssl/evp.h>

#include <string>
#include <string_view>

#include "core/base/error.hpp"

namespace jpblob {

// Throws Error for an unknown format.
struct ObjectHasher {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  explicit ObjectHasher(const std::string& format) {
    const EVP_MD* md = format == "sha256" ? EVP_sha256() : format == "sha1" ? EVP_sha1() : nullptr;
    if (!ctx) throw Error("cannot set up the hash " + format + ": out of memory");
    if (!md) {
      EVP_MD_CTX_free(ctx);
      throw Error("cannot write to git's objects: unknown object format \"" + format + "\"");
    }
    if (EVP_DigestInit_ex(ctx, md, nullptr) != 1) {
      EVP_MD_CTX_free(ctx);
      throw Error("cannot set up the hash " + format);
    }
  }
  ~ObjectHasher() { EVP_MD_CTX_free(ctx); }
  ObjectHasher(const ObjectHasher&) = delete;
  ObjectHasher& operator=(const ObjectHasher&) = delete;
  void update(std::string_view data) {
    if (EVP_DigestUpdate(ctx, data.data(), data.size()) != 1) throw Error("hashing failed");
  }
  std::string finish_raw() {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned size = 0;
    if (EVP_DigestFinal_ex(ctx, out, &size) != 1) throw Error("hashing failed");
    return std::string(reinterpret_cast<char*>(out), size);
  }
};

// An object id's raw bytes as git writes them in hex, and back. Throws
// Error for text that is not hex.
inline std::string hex_object_id(std::string_view raw) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(raw.size() * 2);
  for (const char ch : raw) {
    const auto b = static_cast<unsigned char>(ch);
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  return out;
}

inline std::string raw_object_id(std::string_view hex) {
  auto nibble = [&](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    throw Error("not an object id: " + std::string(hex));
  };
  if (hex.size() % 2) throw Error("not an object id: " + std::string(hex));
  std::string out;
  out.reserve(hex.size() / 2);
  for (std::size_t i = 0; i < hex.size(); i += 2)
    out.push_back(static_cast<char>(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
  return out;
}

}  // namespace jpblob
