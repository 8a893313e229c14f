// The round-trip properties of the session filter (docs/FORMAT.md, "The
// filter") on every image shape it knows, over generated sessions and the
// real sessions of ../shared/realdata:
//   clean(clean(x)) == clean(x), clean(smudge(clean(x))) == clean(x), and
//   smudge(clean(x)) == x when x holds no blob: references of its own.
#include <gtest/gtest.h>

#include <random>

#include "core/documents/session_jsonl.hpp"
#include "core/format/base64.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

class Generator {
 public:
  explicit Generator(unsigned seed) : rng_(seed) {}

  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng_); }

  std::string bytes(std::size_t n) {
    std::string s(n, '\0');
    for (auto& c : s) c = static_cast<char>(rng_());
    return s;
  }

  // A value for a base64 site: mostly what clean takes, often what it must
  // leave (short, not canonical, empty, a reference of the user's own).
  std::string base64_value(bool& own_reference) {
    const std::size_t sizes[] = {0, 1, 30, 765, 767, 768, 769, 2000};
    std::string b = base64_encode(bytes(sizes[pick(8)]), Base64Alphabet::Standard);
    switch (pick(10)) {
      case 0: return b.empty() ? b : b.substr(0, b.size() - 1);           // padding lost
      case 1: return b.substr(0, b.size() / 2) + "\\n" + b.substr(b.size() / 2);  // an escape
      case 2: return b.empty() ? b : b.substr(0, b.size() / 2) + "\\/" + b.substr(b.size() / 2);
      case 3: own_reference = true; return "blob:sha256:" + Sha256::of(kept_[pick(kept_.size())]).hex();
      case 4: own_reference = true; return "blob:sha256:" + Sha256::of(bytes(10)).hex();  // no such blob
      case 5:  // stray bits before the padding: decodes, but loading would write other text
        if (b.ends_with("==")) b[b.size() - 3] = 'R';
        else if (b.ends_with("=")) b[b.size() - 2] = 'B';
        return b;
      default: return b;
    }
  }

  std::string data_url_value(bool& own_reference) {
    const std::string b = base64_encode(bytes(pick(60)), Base64Alphabet::Standard);
    switch (pick(8)) {
      case 0: return "https://example.com/" + std::to_string(pick(100)) + ".png";
      case 1: return "data:image\\/png;base64," + b;  // a spelling loading would not write back
      case 2: return "data:text/plain;base64," + b;
      case 3: return "data:image/svg+xml;utf8,<svg \\\"/>";
      case 4: own_reference = true; return "blob:sha256:" + Sha256::of(kept_[pick(kept_.size())]).hex();
      default: return "data:image/png;base64," + b;
    }
  }

  std::string line(bool& own_reference) {
    auto b = [&] { return base64_value(own_reference); };
    switch (pick(9)) {
      case 0:
        return R"({"type":"message","message":{"role":"user","content":[{"type":"text","text":"x"},{"type":"image","data":")" +
               b() + R"(","mimeType":"image/png"}]}})";
      case 1:
        return R"({"type":"message","message":{"images":[{"data":")" + b() + R"(","mimeType":"image/png"},{"type":"image","data":")" +
               b() + R"("}]}})";
      case 2:
        return R"({"providerPayload":{"items":[{"type":"image_generation_call","id":"ig","result":")" + b() + R"("}]}})";
      case 3:
        return R"({"input":[{"type":"input_image","image_url":")" + data_url_value(own_reference) + R"("}]})";
      case 4:
        return R"({"type":"user","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":")" +
               b() + R"("}}]}})";
      case 5:
        return R"({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{"type":"base64","data":")" +
               b() + R"("}},{"type":"text","text":"ok"}]}]}})";
      case 6:
        return R"({"content":[{"type":"toolCall","arguments":{"images":[{"data":")" + b() +
               R"(","mimeType":"image/png"}]},"thoughtSignature":"s"}]})";
      case 7: {
        std::string whole = R"({"content":[{"type":"image","data":")" + b() + R"("}]})";
        return whole.substr(0, pick(whole.size()));  // cut off, or blank
      }
      default:
        return R"({"type":"summary","summary":"s","leafUuid":"u"})";
    }
  }

  std::string session(bool& own_reference) {
    std::string s;
    const std::size_t n = 1 + pick(6);
    for (std::size_t i = 0; i < n; ++i) {
      s += line(own_reference);
      const char* ends[] = {"\n", "\n", "\r\n", "\n\n"};
      if (i + 1 < n || pick(2)) s += ends[pick(4)];
    }
    return s;
  }

  std::vector<std::string> kept_;

 private:
  std::mt19937 rng_;
};

class SessionProperties : public ::testing::Test {
 protected:
  test::TempDir dir;
  BlobStore store = BlobStore::for_storage(dir / ".jp", dir.path());

  std::string clean(std::string_view in) {
    std::string out;
    externalize_session(in, store, {}, [&](std::string_view s) { out.append(s); });
    return out;
  }
  std::string smudge(std::string_view in) {
    std::string out;
    StoreBlobSource source(store);
    load_session(in, source, {}, [&](std::string_view s) { out.append(s); });
    return out;
  }
};

TEST_F(SessionProperties, HoldOnTwoThousandGeneratedSessionsOfEveryShape) {
  Generator gen(2026);
  // Blobs a session may name by hand: small ones (a reference loading keeps)
  // and large ones (one it restores, so x itself does not come back).
  for (std::size_t n : {4, 40, 800, 3000}) {
    gen.kept_.push_back(gen.bytes(n));
    store.put(gen.kept_.back());
  }
  gen.kept_.push_back("data:image/png;base64,AAAA");
  store.put(gen.kept_.back());
  std::size_t replaced_somewhere = 0, exact = 0;
  for (int i = 0; i < 2000; ++i) {
    bool own_reference = false;
    const std::string x = gen.session(own_reference);
    const std::string c = clean(x);
    ASSERT_EQ(clean(c), c) << "clean(clean(x)) != clean(x) for\n" << x;
    const std::string s = smudge(c);
    ASSERT_EQ(clean(s), c) << "clean(smudge(clean(x))) != clean(x) for\n" << x;
    if (!own_reference) {
      ASSERT_EQ(s, x) << "smudge(clean(x)) != x for\n" << x;
      ++exact;
    }
    if (c != x) ++replaced_somewhere;
  }
  EXPECT_GT(replaced_somewhere, 700u) << "the generator must exercise externalizing";
  EXPECT_GT(exact, 700u);
}

TEST_F(SessionProperties, HoldOnEveryRealSession) {
  const auto files = test::realdata_sessions();
  if (files.empty()) GTEST_SKIP() << "../shared/realdata is absent";
  for (const fs::path& f : files) {
    const std::string x = test::read_text(f);
    const std::string c = clean(x);
    EXPECT_EQ(clean(c), c) << f;
    EXPECT_EQ(smudge(c), x) << f;
    // Only pi-mono's compact.jsonl holds images (realdata's README);
    // Claude Code transcripts hold tool-result text that moves.
    if (f.filename().string().find("_compact") != std::string::npos)
      EXPECT_NE(c.find("\"data\":\"blob:sha256:"), std::string::npos) << f;
    else if (f.parent_path().filename() == "claude-code")
      EXPECT_TRUE(x.size() < 100000 || c.size() < x.size() * 9 / 10) << f << ": a transcript's tool results move";
    else
      EXPECT_EQ(c, x) << f << ": a session without images passes through unchanged";
  }
}

}  // namespace
}  // namespace jpblob
