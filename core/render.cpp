#include "render.hpp"

#include <algorithm>
#include <vector>

#include "base64.hpp"

#include "error.hpp"
#include "gzip.hpp"
#include "json_scan.hpp"
#include "json_string.hpp"
#include "payload.hpp"

namespace jpblob {

namespace {
std::string binary_note(std::size_t size, std::string_view where = {}) {
  std::string note = "<binary: " + std::to_string(size) + " bytes";
  if (!where.empty()) note.append(", ").append(where);
  return note + ">";
}
}  // namespace

std::string render_conversation(std::string_view input, const BlobSource& source) {
  struct Site {
    std::size_t begin, end;
    std::optional<Reference> ref;  // a reference to resolve, or an inline payload to decode
    PayloadEncoding encoding;
  };
  std::vector<Site> sites;
  std::vector<FoundReference> found;
  std::vector<PayloadSite> payloads;
  const auto scan = scan_events(input, [&](const JsonTree& event) {
    found.clear();
    find_references(event, found);
    for (const auto& f : found)
      sites.push_back({event.node(f.node).begin, event.node(f.node).end, f.ref, PayloadEncoding::None});
    payloads.clear();
    find_payload_sites(event, payloads);
    for (const auto& p : payloads) {
      if (p.kind != SiteKind::String) continue;
      const std::string_view token = event.span(p.node);
      const std::string_view inner = token.substr(1, token.size() - 2);
      for (auto [alphabet, encoding] : {std::pair{Base64Alphabet::Standard, PayloadEncoding::Base64},
                                        std::pair{Base64Alphabet::UrlSafe, PayloadEncoding::Base64Url}})
        if (base64_decode(inner, alphabet)) {
          sites.push_back({event.node(p.node).begin, event.node(p.node).end, std::nullopt, encoding});
          break;
        }
    }
  });
  if (scan.shape != DocumentShape::Conversation) return std::string(input);
  std::sort(sites.begin(), sites.end(), [](const Site& a, const Site& b) { return a.begin < b.begin; });
  std::string out;
  std::size_t copied = 0;
  for (const Site& s : sites) {
    std::optional<std::string> bytes;
    std::string where;
    if (s.ref) {
      try {
        bytes = source.fetch(s.ref->digest, s.ref->size);
      } catch (const Error&) {
        continue;  // corrupt: leave the reference for `verify` to report
      }
      where = format_blob_url(s.ref->digest);
    } else {
      const std::string_view token = input.substr(s.begin + 1, s.end - s.begin - 2);
      bytes = base64_decode(token, s.encoding == PayloadEncoding::Base64 ? Base64Alphabet::Standard
                                                                          : Base64Alphabet::UrlSafe);
    }
    if (!bytes) continue;
    out.append(input.substr(copied, s.begin - copied));
    if (is_valid_utf8(*bytes)) append_json_string(out, *bytes);
    else append_json_string(out, binary_note(bytes->size(), where));
    copied = s.end;
  }
  out.append(input.substr(copied));
  return out;
}

std::string render_blob_file(std::string_view gz, std::uint64_t max_size) {
  try {
    std::string bytes = gzip_decompress(gz, max_size);
    if (is_valid_utf8(bytes)) return bytes;
    return binary_note(bytes.size()) + "\n";
  } catch (const Error& e) {
    return std::string("<unreadable blob: ") + e.what() + ">\n";
  }
}

}  // namespace jpblob
