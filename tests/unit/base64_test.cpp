#include "core/base64.hpp"

#include <gtest/gtest.h>

namespace jpblob {
namespace {

TEST(Base64, RoundTripsEveryLengthModThree) {
  for (std::string s : {"", "a", "ab", "abc", "abcd", "\xff\x00\x10"}) {
    for (auto a : {Base64Alphabet::Standard, Base64Alphabet::UrlSafe}) {
      const auto enc = base64_encode(s, a);
      auto dec = base64_decode(enc, a);
      ASSERT_TRUE(dec);
      EXPECT_EQ(*dec, s);
    }
  }
}

}  // namespace
}  // namespace jpblob
