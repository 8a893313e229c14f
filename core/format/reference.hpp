// Blob references (docs/FORMAT.md, "References"): {"$blob": "<64 hex>", "size": N[, "encoding": E]}
// and the string form blob:sha256:<64 hex>.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/format/digest.hpp"
#include "core/format/json_scan.hpp"

namespace jpblob {

// How a payload was spelled in the working tree, so smudge can restore the
// exact token. None marks an RFD 066 reference, which smudge leaves alone.
enum class PayloadEncoding { None, Base64, Base64Url, Text };

std::string_view encoding_name(PayloadEncoding encoding);

struct Reference {
  Digest digest;
  std::uint64_t size;
  PayloadEncoding encoding = PayloadEncoding::None;

  friend bool operator==(const Reference&, const Reference&) = default;
};

// The reference held by node `i`, or nullopt when it is anything else. A
// reference is an object with exactly the keys $blob and size (and
// optionally encoding), each once; $blob is 64 lowercase hex; size is a
// plain non-negative integer (no sign, fraction or exponent) that fits in 64
// bits; encoding is one of "base64", "base64url", "text". Everything that
// merely looks like one is ordinary data.
std::optional<Reference> parse_reference(const JsonTree& tree, std::uint32_t i);

// The same for a whole JSON text.
std::optional<Reference> parse_reference_json(std::string_view json);

// The digests object `i` names under a key `$blob` (a string of 64 hex
// digits, either case), whatever else it holds: a reference, or an object
// shaped like one with more keys (JP's draft of encrypted references adds
// `"encryption"`). Empty for anything else. Liveness keeps every blob so
// named (docs/FORMAT.md, "References"), and clean and smudge leave such an
// object as it is.
std::vector<Digest> named_blobs(const JsonTree& tree, std::uint32_t i);

// The compact form the clean filter writes:
// {"$blob":"<hex>","size":N} or {"$blob":"<hex>","size":N,"encoding":"base64"}
void append_reference(std::string& out, const Reference& ref);
std::string format_reference(const Reference& ref);

// Parses "blob:sha256:<64 hex>"; nullopt for anything else.
std::optional<Digest> parse_blob_url(std::string_view url);
std::string format_blob_url(const Digest& digest);

}  // namespace jpblob
