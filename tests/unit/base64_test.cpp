#include "core/format/base64.hpp"

#include <gtest/gtest.h>

namespace jpblob {
namespace {

TEST(Base64, KnownVectors) {
  EXPECT_EQ(base64_encode("", Base64Alphabet::Standard), "");
  EXPECT_EQ(base64_encode("f", Base64Alphabet::Standard), "Zg==");
  EXPECT_EQ(base64_encode("fo", Base64Alphabet::Standard), "Zm8=");
  EXPECT_EQ(base64_encode("foobar", Base64Alphabet::Standard), "Zm9vYmFy");
  EXPECT_EQ(base64_encode("\xfb\xff", Base64Alphabet::Standard), "+/8=");
  EXPECT_EQ(base64_encode("\xfb\xff", Base64Alphabet::UrlSafe), "-_8=");
}

TEST(Base64, RoundTripsEveryLengthAndByte) {
  std::string s;
  for (int n = 0; n < 300; ++n) {
    for (auto a : {Base64Alphabet::Standard, Base64Alphabet::UrlSafe}) {
      auto dec = base64_decode(base64_encode(s, a), a);
      ASSERT_TRUE(dec) << n;
      EXPECT_TRUE(base64_is_canonical(base64_encode(s, a), a)) << n;
      EXPECT_EQ(*dec, s);
    }
    s.push_back(static_cast<char>(n * 37 % 256));
  }
}

TEST(Base64, RefusesWhatEncodeWouldNotProduce) {
  const auto S = Base64Alphabet::Standard;
  for (const char* bad : {"Zg", "Zg=", "Zg===", "Zh==",  // non-zero unused bits
                          "Zm9=",                       // non-zero unused bits
                          "Zm 9v", "Zm9v\n", "Z=g=", "=Zg=", "Zm9vYmFy=", "-_8=", "Zg==Zg==",
                          "\xc3\xa9\xc3\xa9"})
  {
    EXPECT_FALSE(base64_decode(bad, S)) << bad;
    EXPECT_FALSE(base64_is_canonical(bad, S)) << bad;
  }
  EXPECT_FALSE(base64_decode("+/8=", Base64Alphabet::UrlSafe));
  EXPECT_TRUE(base64_decode("-_8=", Base64Alphabet::UrlSafe));
}

}  // namespace
}  // namespace jpblob
