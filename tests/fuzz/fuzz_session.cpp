// Fuzzes the session JSONL transform (docs/FORMAT.md, "Agent sessions": every image site, pi's,
// oh-my-pi's and Claude Code's; the corpus seeds each) against its invariants:
//   externalize(externalize(x)) == externalize(x),
//   externalize(load(externalize(x))) == externalize(x),
//   load(externalize(x)) == x when x held no blob: references of its own;
// and the agent:// query and percent-decoding parsers, which must only ever
// throw jpblob::Error.
#include <stdlib.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/store/blob_store.hpp"
#include "tests/fuzz/fuzz_store.hpp"
#include "core/base/error.hpp"
#include "core/artifacts/internal_url.hpp"
#include "core/documents/session_jsonl.hpp"

namespace {

using jpblob::fuzz::store;

std::string externalize(std::string_view in) {
  std::string out;
  jpblob::externalize_session(in, store(), {}, [&](std::string_view s) { out.append(s); });
  return out;
}

std::string load(std::string_view in) {
  std::string out;
  jpblob::StoreBlobSource source(store());
  jpblob::load_session(in, source, {}, [&](std::string_view s) { out.append(s); });
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view x(reinterpret_cast<const char*>(data), size);
  const std::string c = externalize(x);
  if (externalize(c) != c) std::abort();
  const std::string l = load(c);
  if (externalize(l) != c) std::abort();
  if (jpblob::session_images(x, 0).referenced.empty() && l != x) std::abort();

  // The query parser: the input up to the first newline is the query, the
  // rest the JSON.
  const auto nl = x.find('\n');
  const std::string_view query = x.substr(0, nl), json = nl == std::string_view::npos ? "" : x.substr(nl + 1);
  try {
    jpblob::extract_json_query(json, query);
  } catch (const jpblob::Error&) {
  }
  if (auto decoded = jpblob::percent_decode(query))
    if (decoded->find('\0') != std::string::npos) std::abort();
  return 0;
}
