// Smudge of a large file: blobs fetched in windows of document order, the
// output streamed in pieces, and a pool's reservation declined.
#include <gtest/gtest.h>

#include <map>
#include <mutex>

#include "core/base/error.hpp"
#include "core/documents/transform.hpp"

namespace jpblob {
namespace {

// Blobs in memory; records what smudge does, in order: "f<k>" for a fetch
// of blob k, "o" for a piece of output.
class Recording : public BlobSource {
 public:
  std::map<Digest, std::pair<int, std::string>> blobs;
  std::optional<Digest> broken;
  mutable std::mutex m;
  mutable std::vector<std::string> log;
  std::optional<std::string> fetch(const Digest& d, std::optional<std::uint64_t>) const override {
    const auto& [k, bytes] = blobs.at(d);
    {
      std::lock_guard lock(m);
      log.push_back("f" + std::to_string(k));
    }
    if (broken == d) throw Error("corrupt blob " + d.hex());
    return bytes;
  }
  void wrote() {
    std::lock_guard lock(m);
    log.push_back("o");
  }
};

// A committed conversation of `n` tool outputs of `size` bytes each, in
// `source`.
std::string conversation(Recording& source, int n, std::size_t size) {
  std::string doc = "[";
  for (int k = 0; k < n; ++k) {
    // Text no base64 reads: clean would store it as text again.
    std::string bytes = "output " + std::to_string(k) + ":";
    bytes.resize(size, ' ');
    const Digest d = Sha256::of(bytes);
    source.blobs[d] = {k, bytes};
    doc += std::string(k ? "," : "") + R"({"type":"tool_call_response","content":{"$blob":")" + d.hex() +
           R"(","size":)" + std::to_string(size) + R"(,"encoding":"text"}})";
  }
  return doc + "]";
}

SmudgeOptions windowed(std::uint64_t window, std::size_t piece) {
  SmudgeOptions o;
  o.path = ".jp/conversations/1-x/events.json";
  o.fetch_window = window;
  o.stream_piece = piece;
  return o;
}

// With a window of two blobs, smudge never fetches more than two ahead of
// what it wrote, declares that window (not every blob) to the pool, and
// gives the same bytes as one whole fetch.
TEST(SmudgeStream, FetchesInWindowsAndStreamsPieces) {
  Recording source;
  const std::string doc = conversation(source, 10, 1000);
  std::string whole;
  smudge(doc, source, windowed(1 << 30, 0), [&](std::string_view s) { whole.append(s); });
  EXPECT_EQ(source.log.size(), 10u);
  source.log.clear();

  std::string streamed;
  std::uint64_t declared = 0;
  SmudgeOptions o = windowed(2000, 1);
  o.reserve = [&](std::uint64_t bytes) {
    declared = bytes;
    return true;
  };
  smudge(doc, source, o, [&](std::string_view s) {
    streamed.append(s);
    source.wrote();
  });
  EXPECT_EQ(streamed, whole);
  EXPECT_EQ(whole.find("$blob"), std::string::npos) << "not every blob restored";
  EXPECT_LT(declared, 2000u + 2 * 1u + 100) << "declared every blob, not one window";
  EXPECT_GE(declared, 2000u);
  // Between two pieces of output, at most one window's fetches.
  int run = 0, most = 0, pieces = 0;
  for (const auto& e : source.log) {
    if (e == "o") {
      run = 0;
      ++pieces;
    } else {
      most = std::max(most, ++run);
    }
  }
  EXPECT_LE(most, 2) << testing::PrintToString(source.log);
  EXPECT_GE(pieces, 4);
}

// A corrupt blob in a later window fails the smudge after pieces went out:
// the caller must then drop what it got (the filter says status=error).
TEST(SmudgeStream, AFailureInALaterWindowComesAfterPieces) {
  Recording source;
  const std::string doc = conversation(source, 10, 1000);
  for (const auto& [d, blob] : source.blobs)
    if (blob.first == 8) source.broken = d;
  std::size_t wrote = 0;
  try {
    smudge(doc, source, windowed(2000, 1), [&](std::string_view s) { wrote += s.size(); });
    FAIL() << "smudge succeeded with a corrupt blob";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("corrupt blob"), std::string::npos) << e.what();
  }
  EXPECT_GT(wrote, 0u);
  // Not streamed, nothing goes out before the failure.
  wrote = 0;
  EXPECT_THROW(smudge(doc, source, windowed(2000, 0), [&](std::string_view s) { wrote += s.size(); }), Error);
  EXPECT_EQ(wrote, 0u);
}

// A reservation the pool declines: nothing fetched, nothing written.
TEST(SmudgeStream, ADeclinedReservationFetchesNothing) {
  Recording source;
  const std::string doc = conversation(source, 3, 100);
  SmudgeOptions o = windowed(1 << 20, 0);
  o.reserve = [](std::uint64_t) { return false; };
  bool wrote = false;
  EXPECT_THROW(smudge(doc, source, o, [&](std::string_view) { wrote = true; }), RestoreElsewhere);
  EXPECT_TRUE(source.log.empty());
  EXPECT_FALSE(wrote);
}

}  // namespace
}  // namespace jpblob
