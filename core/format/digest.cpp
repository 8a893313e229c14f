#include "core/format/digest.hpp"

#include <openssl/evp.h>

#include "core/base/error.hpp"

namespace jpblob {

namespace {
int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;  // upper case is refused on purpose: one spelling per digest
}
}  // namespace

bool is_digest_hex(std::string_view text) {
  if (text.size() != 64) return false;
  for (char c : text)
    if (hex_value(c) < 0) return false;
  return true;
}

std::optional<Digest> Digest::from_hex(std::string_view hex) {
  if (!is_digest_hex(hex)) return std::nullopt;
  Bytes b{};
  for (std::size_t i = 0; i < 32; ++i)
    b[i] = static_cast<std::uint8_t>(hex_value(hex[2 * i]) << 4 | hex_value(hex[2 * i + 1]));
  return Digest(b);
}

std::string Digest::hex() const {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(64, '0');
  for (std::size_t i = 0; i < 32; ++i) {
    out[2 * i] = kHex[bytes_[i] >> 4];
    out[2 * i + 1] = kHex[bytes_[i] & 15];
  }
  return out;
}

Sha256::Sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_ || EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(ctx_), EVP_sha256(), nullptr) != 1) {
    EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_));
    throw Error("cannot initialise SHA-256: OpenSSL EVP failed");
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(ctx_)); }

void Sha256::update(std::string_view data) {
  if (EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(ctx_), data.data(), data.size()) != 1)
    throw Error("SHA-256 update failed in OpenSSL EVP");
}

Digest Sha256::finish() {
  Digest::Bytes out{};
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(ctx_), out.data(), &len) != 1 || len != 32)
    throw Error("SHA-256 finish failed in OpenSSL EVP");
  return Digest(out);
}

Digest Sha256::of(std::string_view data) {
  Sha256 h;
  h.update(data);
  return h.finish();
}

}  // namespace jpblob
