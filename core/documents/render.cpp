#include "core/documents/render.hpp"

#include <algorithm>
#include <map>
#include <vector>

#include "core/format/base64.hpp"
#include "core/base/error.hpp"
#include "core/format/gzip.hpp"
#include "core/format/json_scan.hpp"
#include "core/format/json_string.hpp"
#include "core/format/payload.hpp"
#include "core/store/restore_budget.hpp"

namespace jpblob {

namespace {
std::string binary_note(std::size_t size, std::string_view where = {}) {
  std::string note = "<binary: " + std::to_string(size) + " bytes";
  if (!where.empty()) note.append(", ").append(where);
  return note + ">";
}

// The one line that stands for a payload larger than git's
// core.bigFileThreshold, as git prints "Binary files differ" for such a
// file. `more`: the size is a lower bound (the blob inflated past it).
std::string not_shown_note(std::uint64_t size, std::uint64_t threshold, const std::optional<Digest>& digest,
                           bool more = false) {
  std::string note = "<not shown: " + std::string(more ? "more than " : "") + std::to_string(size) +
                     " bytes, over core.bigFileThreshold (" + std::to_string(threshold) + ")";
  if (digest) note += ", " + format_blob_url(*digest) + "; `git jpblob cat` gives it";
  return note + ">";
}

// A value render_conversation shows as text.
struct RenderSite {
  std::size_t begin, end;
  std::optional<Reference> ref;  // a reference to resolve, or an inline payload to decode
  PayloadEncoding encoding;
  // More than the threshold (declared, or the inline string's decoded
  // length): shown as a note, never read or decoded.
  std::optional<std::uint64_t> over;
};

// The bytes a base64 token of `length` characters decodes to, at most.
std::uint64_t decoded_length(std::size_t length) { return std::uint64_t{length} / 4 * 3 + length % 4; }

// Every reference in the conversation `input`, wherever it stands (not in
// the user's own data: user_data_sites), and every inline base64 payload,
// in document order; false when `input` is not a conversation. A payload
// over `threshold` is not decoded, even to tell whether it is base64.
bool find_render_sites(std::string_view input, std::uint64_t threshold, std::vector<RenderSite>& sites) {
  std::vector<FoundReference> found;
  std::vector<PayloadSite> payloads;
  const auto scan = scan_events(input, [&](const JsonTree& event) {
    payloads.clear();
    find_payload_sites(event, payloads);
    // A literal, or another object of the agent's data, is the user's own
    // value: shown as it is.
    const std::vector<std::uint32_t> users = user_data_sites(payloads);
    found.clear();
    find_references(event, found, nullptr, &users);
    for (const auto& f : found)
      sites.push_back({event.node(f.node).begin, event.node(f.node).end, f.ref, PayloadEncoding::None,
                       f.ref.size > threshold ? std::optional(f.ref.size) : std::nullopt});
    for (const auto& p : payloads) {
      if (p.kind != SiteKind::String) continue;
      const std::string_view token = event.span(p.node);
      const std::string_view inner = token.substr(1, token.size() - 2);
      if (const std::uint64_t size = decoded_length(inner.size()); size > threshold) {
        sites.push_back({event.node(p.node).begin, event.node(p.node).end, std::nullopt, PayloadEncoding::None, size});
        continue;
      }
      for (auto [alphabet, encoding] : {std::pair{Base64Alphabet::Standard, PayloadEncoding::Base64},
                                        std::pair{Base64Alphabet::UrlSafe, PayloadEncoding::Base64Url}})
        if (base64_decode(inner, alphabet)) {
          sites.push_back({event.node(p.node).begin, event.node(p.node).end, std::nullopt, encoding, std::nullopt});
          break;
        }
    }
  });
  if (scan.shape != DocumentShape::Conversation) return false;
  std::sort(sites.begin(), sites.end(), [](const RenderSite& a, const RenderSite& b) { return a.begin < b.begin; });
  return true;
}

// What a site shows in place of its value (nullopt: the value as it is),
// reading each distinct blob once through `read`; `storage` holds what
// the answer views when it is not a blob read.
using ReadBlobs = std::map<std::pair<Digest, std::uint64_t>, std::optional<std::string>>;
std::optional<std::string_view> shown_text(std::string_view input, const RenderSite& s, const BlobSource& source,
                                           ReadBlobs& read, std::string& storage) {
  const std::string* bytes = nullptr;
  std::string where;
  if (s.ref) {
    const auto key = std::pair{s.ref->digest, s.ref->size};
    auto at = read.find(key);
    if (at == read.end()) {
      std::optional<std::string> fetched;
      try {
        fetched = source.fetch(s.ref->digest, s.ref->size);
      } catch (const Error&) {
        // corrupt: leave the reference for `verify` to report
      }
      at = read.emplace(key, std::move(fetched)).first;
    }
    if (!at->second) return std::nullopt;
    bytes = &*at->second;
    where = format_blob_url(s.ref->digest);
  } else {
    const std::string_view token = input.substr(s.begin + 1, s.end - s.begin - 2);
    auto decoded = base64_decode(token, s.encoding == PayloadEncoding::Base64 ? Base64Alphabet::Standard
                                                                               : Base64Alphabet::UrlSafe);
    if (!decoded) return std::nullopt;
    storage = std::move(*decoded);
    bytes = &storage;
  }
  if (is_valid_utf8(*bytes)) return std::string_view(*bytes);
  storage = binary_note(bytes->size(), where);
  return std::string_view(storage);
}

}  // namespace

std::string render_conversation(std::string_view input, const BlobSource& source, std::uint64_t max_size,
                                const std::string& path, std::uint64_t big_file_threshold) {
  std::vector<RenderSite> sites;
  if (!find_render_sites(input, big_file_threshold, sites)) return std::string(input);
  // The same bound as smudge (docs/FORMAT.md, "Bounds"): every use is
  // charged its declared size before any blob is read, and each distinct
  // blob is read once. A payload over the threshold is never read: its
  // note is charged as it is written.
  RestoreBudget budget(max_size, path);
  budget.charge(input.size());
  for (const RenderSite& s : sites)
    if (s.ref && !s.over) budget.charge(s.ref->size, &s.ref->digest);
  ReadBlobs read;
  std::string out;
  std::size_t copied = 0;
  for (const RenderSite& s : sites) {
    std::string storage;
    std::optional<std::string_view> shown;
    if (s.over) shown = storage = not_shown_note(*s.over, big_file_threshold, s.ref ? std::optional(s.ref->digest) : std::nullopt);
    else shown = shown_text(input, s, source, read, storage);
    if (!shown) continue;
    // Escapes lengthen text past its bytes: charge what was not charged,
    // before building it.
    const std::uint64_t length = json_string_length(*shown), charged = s.ref && !s.over ? s.ref->size : 0;
    if (length > charged) budget.charge(length - charged, s.ref ? &s.ref->digest : nullptr);
    out.append(input.substr(copied, s.begin - copied));
    append_json_string(out, *shown);
    copied = s.end;
  }
  out.append(input.substr(copied));
  return out;
}

namespace {
// The payload given on: `total` bytes in all, of which `shown` are the
// first. Memory: `shown`.
std::string shown_blob(std::string shown, std::uint64_t total) {
  if (total == shown.size()) return is_valid_utf8(shown) ? shown : binary_note(total) + "\n";
  // Cut mid-character: drop the incomplete sequence at the end.
  std::size_t keep = shown.size();
  for (std::size_t back = 0; back < 3 && keep > 0 && (static_cast<unsigned char>(shown[keep - 1]) & 0xc0) == 0x80; ++back)
    --keep;
  if (keep > 0 && static_cast<unsigned char>(shown[keep - 1]) >= 0xc0) --keep;
  shown.resize(keep);
  if (!is_valid_utf8(shown)) return binary_note(total) + "\n";
  return shown + "\n<" + std::to_string(total - shown.size()) + " more bytes not shown; `git jpblob cat` gives them all>\n";
}
}  // namespace

std::string render_blob_file(std::string_view gz, std::uint64_t max_size, std::uint64_t big_file_threshold,
                             const std::optional<Digest>& digest) {
  // Over git's threshold by what the trailer declares: nothing is inflated.
  const auto declared = gzip_declared_size(gz);
  if (declared && *declared > big_file_threshold)
    return not_shown_note(*declared, big_file_threshold, digest) + "\n";
  // A display: the first kShownBlobBytes, however much the blob holds.
  // git's diff splits what it is shown into lines, and 200 MB of newlines
  // (a 200 KB gzip file) would cost it gigabytes. A trailer that lies stops
  // the inflate at the threshold.
  std::string shown;
  std::uint64_t total = 0;
  try {
    gzip_decompress(gz, std::min(max_size, big_file_threshold), [&](std::string_view piece) {
      total += piece.size();
      if (shown.size() < kShownBlobBytes) shown.append(piece.substr(0, kShownBlobBytes - shown.size()));
    });
  } catch (const GzipTooLarge& e) {
    if (big_file_threshold < max_size) return not_shown_note(big_file_threshold, big_file_threshold, digest, true) + "\n";
    return std::string("<unreadable blob: ") + e.what() + ">\n";
  } catch (const Error& e) {
    return std::string("<unreadable blob: ") + e.what() + ">\n";
  }
  return shown_blob(std::move(shown), total);
}

}  // namespace jpblob
