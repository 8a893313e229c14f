// Fuzzes the clean and smudge transforms against the invariants of docs/FORMAT.md, "The filter",
// with clean reading x and smudge's output in JP's form, and its own output in the committed form:
//   clean(clean(x)) == clean(x) and clean(smudge(clean(x))) == clean(x),
// and smudge(clean(x)) == x whenever x holds no inline content object
// (reference-shaped user data included: "Literal objects").
#include <stdlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "core/format/payload.hpp"
#include "core/store/blob_store.hpp"
#include "tests/fuzz/fuzz_store.hpp"
#include "core/documents/transform.hpp"

namespace {

using jpblob::fuzz::store;

std::string run_clean(std::string_view in, jpblob::InputForm form) {
  std::string out;
  jpblob::CleanOptions options;
  options.form = form;
  jpblob::clean(in, store(), options, [&](std::string_view s) { out.append(s); });
  return out;
}

std::string run_smudge(std::string_view in) {
  std::string out;
  jpblob::StoreBlobSource source(store());
  jpblob::smudge(in, source, {}, [&](std::string_view s) { out.append(s); });
  return out;
}

// Whether clean turns some of x into a plain reference, which smudge leaves.
bool has_content_objects(std::string_view x) {
  bool found = false;
  std::vector<jpblob::PayloadSite> sites;
  jpblob::scan_events(x, [&](const jpblob::JsonTree& event) {
    sites.clear();
    jpblob::find_payload_sites(event, sites);
    for (const auto& s : sites) found = found || s.kind == jpblob::SiteKind::ContentObject;
  });
  return found;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using jpblob::InputForm;
  const std::string_view x(reinterpret_cast<const char*>(data), size);
  std::string c, s;
  try {
    c = run_clean(x, InputForm::WorkTree);
  } catch (...) {
    std::abort();  // clean never fails on input; only on a broken store
  }
  if (run_clean(c, InputForm::Committed) != c) std::abort();
  try {
    s = run_smudge(c);
  } catch (...) {
    // Smudge restores only the references clean wrote, whose blobs it
    // stored: the user's own (to a blob that may not exist) are literals.
    std::abort();
  }
  if (run_clean(s, InputForm::WorkTree) != c) std::abort();
  if (s != x && !has_content_objects(x)) std::abort();
  return 0;
}
