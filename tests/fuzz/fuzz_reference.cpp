// Fuzzes the JSON scanner and the reference parser: no input may crash
// them, and whatever parses as a reference must format back to a
// reference that parses to the same value.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/format/json_scan.hpp"
#include "core/format/payload.hpp"
#include "core/format/reference.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto ref = jpblob::parse_reference_json(text)) {
    auto again = jpblob::parse_reference_json(jpblob::format_reference(*ref));
    if (!again || !(*again == *ref)) std::abort();
  }
  std::vector<jpblob::FoundReference> found;
  jpblob::scan_events(text, [&](const jpblob::JsonTree& t) { jpblob::find_references(t, found); });
  jpblob::parse_blob_url(text);
  return 0;
}
