#include "core/format/digest.hpp"

#include <gtest/gtest.h>

namespace jpblob {
namespace {

TEST(Digest, KnownSha256Vectors) {
  EXPECT_EQ(Sha256::of("").hex(),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256::of("abc").hex(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Digest, IncrementalEqualsOneShot) {
  Sha256 h;
  h.update("a");
  h.update("bc");
  EXPECT_EQ(h.finish(), Sha256::of("abc"));
}

TEST(Digest, HexRoundTrip) {
  const auto d = Sha256::of("x");
  auto parsed = Digest::from_hex(d.hex());
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, d);
}

TEST(Digest, RefusesAnythingButSixtyFourLowercaseHex) {
  const std::string good(64, 'a');
  EXPECT_TRUE(Digest::from_hex(good));
  EXPECT_FALSE(Digest::from_hex(std::string(63, 'a')));
  EXPECT_FALSE(Digest::from_hex(std::string(65, 'a')));
  EXPECT_FALSE(Digest::from_hex(std::string(64, 'A')));  // one spelling per digest
  EXPECT_FALSE(Digest::from_hex("../" + std::string(61, 'a')));
  EXPECT_FALSE(Digest::from_hex(std::string(62, 'a') + "/a"));
  EXPECT_FALSE(Digest::from_hex(std::string(63, 'a') + "g"));
  EXPECT_FALSE(Digest::from_hex(""));
}

}  // namespace
}  // namespace jpblob
