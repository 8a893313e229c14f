// A session test's store in a temporary folder, with clean and smudge of a
// session through it and the filter's three invariants (docs/FORMAT.md,
// "The filter"): what the session tests of each agent's shapes share.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>

#include "core/documents/session_jsonl.hpp"
#include "core/store/blob_source.hpp"
#include "test_support.hpp"

namespace jpblob::test {

class SessionStoreTest : public ::testing::Test {
 protected:
  TempDir dir;
  BlobStore store = BlobStore::for_storage(dir / ".jp", dir.path());

  // Clean of a session named s.jsonl; `min_size` as jpblob.minSize.
  std::string externalize(std::string_view in, std::uint64_t min_size = 0, TransformReport* report = nullptr) {
    std::string out;
    CleanOptions options;
    options.path = "s.jsonl";
    options.min_size = min_size;
    const auto r = externalize_session(in, store, options, [&](std::string_view s) { out.append(s); });
    if (report) *report = r;
    return out;
  }
  std::string load(std::string_view in) {
    std::string out;
    StoreBlobSource source(store);
    SmudgeOptions options;
    options.path = "s.jsonl";
    load_session(in, source, options, [&](std::string_view s) { out.append(s); });
    return out;
  }
  void expect_round_trip(const std::string& session, std::uint64_t min_size = 0) {
    const std::string cleaned = externalize(session, min_size);
    EXPECT_EQ(load(cleaned), session) << "smudge(clean(x)) == x";
    EXPECT_EQ(externalize(cleaned, min_size), cleaned) << "clean(clean(x)) == clean(x)";
    EXPECT_EQ(externalize(load(cleaned), min_size), cleaned) << "clean(smudge(clean(x))) == clean(x)";
  }
};

}  // namespace jpblob::test
