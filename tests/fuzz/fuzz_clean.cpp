// Fuzzes the clean and smudge transforms against the invariants of docs/FORMAT.md, "The filter":
//   clean(clean(x)) == clean(x) and clean(smudge(clean(x))) == clean(x),
// and smudge(clean(x)) == x whenever clean stored no inline content object.
#include <stdlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/store/blob_store.hpp"
#include "tests/fuzz/fuzz_store.hpp"
#include "core/documents/transform.hpp"

namespace {

using jpblob::fuzz::store;

std::string run_clean(std::string_view in) {
  std::string out;
  jpblob::clean(in, store(), {}, [&](std::string_view s) { out.append(s); });
  return out;
}

std::string run_smudge(std::string_view in) {
  std::string out;
  jpblob::StoreBlobSource source(store());
  jpblob::smudge(in, source, {}, [&](std::string_view s) { out.append(s); });
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view x(reinterpret_cast<const char*>(data), size);
  std::string c, s;
  try {
    // x itself may hold encoded references whose blobs are absent: smudge
    // may then fail, which is correct; the invariants are about clean(x).
    c = run_clean(x);
  } catch (...) {
    std::abort();  // clean never fails on input; only on a broken store
  }
  if (run_clean(c) != c) std::abort();
  try {
    s = run_smudge(c);
  } catch (...) {
    return 0;  // a reference x already held, to a blob that does not exist
  }
  if (run_clean(s) != c) std::abort();
  return 0;
}
