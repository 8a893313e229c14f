// The invariants of docs/FORMAT.md "The filter", for real conversations and generated ones
// (clean reads x and smudge's output in JP's form, its own output in the committed form):
//   clean(clean(x)) == clean(x)
//   clean(smudge(clean(x))) == clean(x)
//   smudge(clean(x)) == x, byte for byte, when x has no inline content objects
#include <gtest/gtest.h>

#include <random>

#include "core/format/base64.hpp"
#include "core/format/digest.hpp"
#include "core/format/json_string.hpp"
#include "core/documents/transform.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

class Invariants {
 public:
  explicit Invariants(const BlobStore& store) : store_(store), source_(store) {}

  std::string clean_of(std::string_view in, InputForm form = InputForm::WorkTree) {
    std::string out;
    CleanOptions options;
    options.form = form;
    clean(in, store_, options, [&](std::string_view s) { out.append(s); });
    return out;
  }
  std::string smudge_of(std::string_view in) {
    std::string out;
    smudge(in, source_, {}, [&](std::string_view s) { out.append(s); });
    return out;
  }
  // Checks all three; returns clean(x).
  std::string check(const std::string& x, bool restorable, const std::string& label) {
    const std::string c = clean_of(x);
    EXPECT_EQ(clean_of(c, InputForm::Committed), c) << "clean(clean(x)) != clean(x) for " << label;
    const std::string s = smudge_of(c);
    EXPECT_EQ(clean_of(s), c) << "clean(smudge(clean(x))) != clean(x) for " << label;
    if (restorable) {
      EXPECT_TRUE(s == x) << "smudge(clean(x)) != x for " << label;
    }
    return c;
  }

 private:
  const BlobStore& store_;
  StoreBlobSource source_;
};

TEST(Properties, HoldOnEveryRealConversation) {
  const auto files = test::fixture_event_files();
  if (files.empty()) GTEST_SKIP() << "../shared/fixtures is absent";
  EXPECT_EQ(files.size(), 21u);
  test::TempDir dir;
  BlobStore store = BlobStore::for_storage(dir / ".jp", dir.path());
  Invariants inv(store);
  std::uint64_t before = 0, after = 0;
  for (const auto& f : files) {
    const std::string x = test::read_text(f);
    const std::string c = inv.check(x, true, f.string());
    EXPECT_LT(c.size(), x.size()) << f;
    before += x.size();
    after += c.size();
  }
  std::uint64_t stored = 0;
  for (auto& e : fs::recursive_directory_iterator(dir / ".jp/blobs"))
    if (e.is_regular_file()) stored += e.file_size();
  // The targets of the foundation issue, on the real data.
  EXPECT_GE(static_cast<double>(before) / static_cast<double>(after), 2.5);
  EXPECT_LT(static_cast<double>(stored + after), 0.6 * static_cast<double>(before));
  std::cout << "[ fixtures ] " << files.size() << " conversations: " << before << " bytes -> "
            << after << " bytes cleaned (" << static_cast<double>(before) / static_cast<double>(after)
            << "x smaller); blobs " << stored << " bytes; cleaned + blobs = "
            << 100.0 * static_cast<double>(stored + after) / static_cast<double>(before)
            << "% of the original\n";
}

// Generates JP-shaped conversations with every kind of payload spelling.
class Generator {
 public:
  explicit Generator(std::uint32_t seed) : rng_(seed) {}

  std::string conversation(bool allow_content_objects) {
    style_ = pick(4);
    std::string out = "[";
    const int events = 1 + pick(8);
    for (int i = 0; i < events; ++i) {
      if (i) out += ",";
      out += nl(1) + event(allow_content_objects);
    }
    out += nl(0) + "]";
    if (coin()) out += style_ == 3 ? "\r\n" : "\n";
    return out;
  }

 private:
  int pick(int n) { return static_cast<int>(rng_() % static_cast<unsigned>(n)); }
  bool coin() { return rng_() & 1; }

  std::string nl(int depth) {
    const auto d = static_cast<std::size_t>(depth);
    std::string s;
    switch (style_) {
      case 0: break;
      case 1: s.append("\n").append(2 * d, ' '); break;
      case 2: s.append("\n").append(d, '\t'); break;
      default: s.append("\r\n").append(4 * d, ' ');
    }
    return s;
  }
  std::string colon() { return style_ == 0 ? ":" : (style_ == 2 ? " : " : ": "); }

  std::string random_bytes(bool text) {
    const int n = pick(5) == 0 ? pick(3000) : pick(40);
    std::string s;
    for (int i = 0; i < n; ++i) {
      if (text) {
        static const std::vector<std::string> pieces = {"a", "Z", " ", "\n", "\t", "\"", "\\", "/",
                                                        "\x01", "\x1f", "\x7f", "\xc3\xa9",
                                                        "\xe2\x82\xac", "\xf0\x9f\x98\x80", "{", "=",
                                                        "+", "-", "_", "0"};
        s += pieces[static_cast<std::size_t>(pick(static_cast<int>(pieces.size())))];
      } else {
        s.push_back(static_cast<char>(pick(256)));
      }
    }
    return s;
  }

  // A string token in one of the spellings JP (or a hand edit) produces.
  std::string payload_token() {
    switch (pick(9)) {
      case 0:
      case 1: return "\"" + base64_encode(random_bytes(coin()), Base64Alphabet::Standard) + "\"";
      case 2: return "\"" + base64_encode(random_bytes(false), Base64Alphabet::UrlSafe) + "\"";
      case 3:
      case 4: return encode_json_string(random_bytes(true));
      case 5: return "\"\\u00e9 non-canonical \\/ escapes\"";
      case 6: return "\"\\ud83d\\ude00 pair and lone \\udc00\"";
      case 7: {  // unpadded base64: not canonical, falls back to text
        std::string b = base64_encode(random_bytes(false), Base64Alphabet::Standard);
        while (!b.empty() && b.back() == '=') b.pop_back();
        return "\"" + b + "\"";
      }
      default: return "\"\"";
    }
  }

  // An object shaped like an encoded reference (issue 25): the user's data
  // at any position, in the compact spelling clean writes or a pretty one,
  // naming a blob that exists or one that does not.
  std::string reference_shaped(int depth) {
    static const char* const encodings[] = {"base64", "base64url", "text"};
    const std::string hex = coin() ? Sha256::of("stored " + std::to_string(pick(4))).hex()
                                   : std::string(64, "0123456789abcdef"[pick(16)]);
    std::vector<std::pair<std::string, std::string>> m = {
        {"$blob", "\"" + hex + "\""},
        {"size", std::to_string(pick(100))},
        {"encoding", std::string("\"") + encodings[pick(3)] + "\""}};
    if (pick(3) == 0) return R"({"$blob":")" + hex + R"(","size":)" + m[1].second + R"(,"encoding":)" +
                             m[2].second + "}";
    std::shuffle(m.begin(), m.end(), rng_);
    std::string o = "{";
    for (std::size_t i = 0; i < m.size(); ++i)
      o += (i ? "," : "") + nl(depth + 1) + "\"" + m[i].first + "\"" + colon() + m[i].second;
    return o + nl(depth) + "}";
  }

  // A literal object as a user might write one: clean's spelling or
  // another, around a reference-shaped object, a literal or anything.
  std::string literal_shaped(int depth) {
    std::string inner;
    switch (pick(4)) {
      case 0: inner = reference_shaped(depth + 1); break;
      case 1: inner = depth > 5 ? reference_shaped(depth + 1) : literal_shaped(depth + 1); break;
      case 2: inner = payload_token(); break;
      default: inner = depth > 3 ? "null" : value(depth + 1);
    }
    if (coin()) return R"({"$jpblob-literal":)" + inner + "}";
    return "{" + nl(depth + 1) + "\"$jpblob-literal\"" + colon() + inner + nl(depth) + "}";
  }

  std::string value(int depth) {
    if (pick(8) == 0) return coin() ? reference_shaped(depth) : literal_shaped(depth);
    switch (depth > 3 ? 0 : pick(6)) {
      case 0: return payload_token();
      case 1: return pick(2) ? "-12.5e+3" : "0";
      case 2: return pick(2) ? "true" : "null";
      case 3: {
        std::string a = "[";
        const int n = pick(4);
        for (int i = 0; i < n; ++i) a += (i ? "," : "") + nl(depth + 1) + value(depth + 1);
        return a + (n ? nl(depth) : "") + "]";
      }
      case 4: return R"({"$blob":")" + std::string(64, "0123456789abcdef"[pick(16)]) + R"(","size":)" +
                     std::to_string(pick(100)) + "}";  // an RFD 066 reference: kept as is
      default: return object(depth + 1, {});
    }
  }

  std::string object(int depth, std::vector<std::pair<std::string, std::string>> members) {
    const int extra = pick(3);
    for (int i = 0; i < extra; ++i) members.emplace_back("k" + std::to_string(pick(50)), value(depth));
    std::shuffle(members.begin(), members.end(), rng_);
    std::string o = "{";
    for (std::size_t i = 0; i < members.size(); ++i)
      o += (i ? "," : "") + nl(depth + 1) + "\"" + members[i].first + "\"" + colon() + members[i].second;
    return o + (members.empty() ? "" : nl(depth)) + "}";
  }

  std::string event(bool allow_content_objects) {
    static const std::vector<std::string> types = {
        "tool_call_response", "tool_call_request", "chat_response", "chat_request",
        "config_delta",       "compaction",        "turn_start",    "inquiry_request"};
    const std::string type = types[static_cast<std::size_t>(pick(static_cast<int>(types.size())))];
    std::vector<std::pair<std::string, std::string>> m = {
        {"type", "\"" + type + "\""}, {"timestamp", "\"2026-04-10 17:04:20.531233\""}};
    if (type == "tool_call_response")
      m.emplace_back("content", pick(4) ? payload_token() : coin() ? reference_shaped(1) : literal_shaped(1));
    if (type == "tool_call_request") m.emplace_back("arguments", object(2, {}));
    if (coin()) m.emplace_back("metadata", object(2, {}));
    if (type == "chat_request") m.emplace_back("content", payload_token());
    if (allow_content_objects && coin())
      m.emplace_back("content", pick(3) == 0 ? literal_shaped(1)
                                : coin()      ? R"({"text":"hand edited"})"
                                       : "{\"blob\":\"" + base64_encode(random_bytes(false),
                                                                        Base64Alphabet::Standard) +
                                             "\"}");
    return object(1, m);
  }

  std::mt19937 rng_;
  int style_ = 0;
};

TEST(Properties, HoldOnTenThousandGeneratedConversations) {
  test::TempDir dir;
  // Durability is not what is tested: without fsync the run takes seconds, not a minute.
  StoreOptions options;
  options.fsync = false;
  BlobStore store = BlobStore::for_storage(dir / ".jp", dir.path(), options);
  Invariants inv(store);
  // Blobs some reference-shaped objects of the generator name.
  for (int k = 0; k < 4; ++k) store.put("stored " + std::to_string(k));
  const std::uint32_t seed = 20261122;
  Generator gen(seed);
  int changed = 0;
  int literals = 0;
  for (int i = 0; i < 10000; ++i) {
    const bool content_objects = i % 5 == 4;
    const std::string x = gen.conversation(content_objects);
    const std::string c =
        inv.check(x, !content_objects, "generated #" + std::to_string(i) + " (seed " + std::to_string(seed) + ")");
    changed += c != x;
    literals += c.find(R"({"$jpblob-literal":)") != std::string::npos;
    if (HasFailure()) break;  // one readable failure beats ten thousand
  }
  // The generator must actually exercise the transforms (about 64% of its
  // conversations hold a payload; the rest hold only inline text).
  EXPECT_GT(changed, 5000);
  // And reference-shaped user data, wrapped (issue 25).
  EXPECT_GT(literals, 1500);
  std::cout << "[ generated ] " << changed << " of 10000 changed by clean, " << literals << " holding literals\n";
}

}  // namespace
}  // namespace jpblob
