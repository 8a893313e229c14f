#include "render.hpp"

#include <vector>

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
    Reference ref;
  };
  std::vector<Site> sites;
  std::vector<FoundReference> found;
  const auto scan = scan_events(input, [&](const JsonTree& event) {
    found.clear();
    find_references(event, found);
    for (const auto& f : found) sites.push_back({event.node(f.node).begin, event.node(f.node).end, f.ref});
  });
  if (scan.shape != DocumentShape::Conversation) return std::string(input);
  std::string out;
  std::size_t copied = 0;
  for (const Site& s : sites) {
    std::optional<std::string> bytes;
    try {
      bytes = source.fetch(s.ref);
    } catch (const Error&) {
      continue;  // corrupt: leave the reference for `verify` to report
    }
    if (!bytes) continue;
    out.append(input.substr(copied, s.begin - copied));
    if (is_valid_utf8(*bytes)) append_json_string(out, *bytes);
    else append_json_string(out, binary_note(bytes->size(), format_blob_url(s.ref.digest)));
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
