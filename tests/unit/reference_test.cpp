#include "core/format/reference.hpp"

#include <gtest/gtest.h>

namespace jpblob {
namespace {

const std::string kHex = "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824";

TEST(Reference, ParsesTheRfdFormAndTheEncodedForm) {
  auto r = parse_reference_json(R"({"$blob":")" + kHex + R"(","size":5})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->digest.hex(), kHex);
  EXPECT_EQ(r->size, 5u);
  EXPECT_EQ(r->encoding, PayloadEncoding::None);
  // Any key order and whitespace.
  r = parse_reference_json("{ \"encoding\" : \"base64url\", \"size\": 0,\n \"$blob\": \"" + kHex + "\" }");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->encoding, PayloadEncoding::Base64Url);
  EXPECT_EQ(r->size, 0u);
  for (auto [name, enc] : {std::pair{"base64", PayloadEncoding::Base64},
                           std::pair{"text", PayloadEncoding::Text}}) {
    r = parse_reference_json(R"({"$blob":")" + kHex + R"(","size":1,"encoding":")" + name + "\"}");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->encoding, enc);
  }
  r = parse_reference_json(R"({"$blob":")" + kHex + R"(","size":18446744073709551615})");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size, UINT64_MAX);
}

TEST(Reference, LookAlikesAreOrdinaryData) {
  const std::string upper = "2CF24DBA5FB0A30E26E83B2AC5B9E29E1B161E5C1FA7425E73043362938B9824";
  for (const std::string& s : std::vector<std::string>{
           R"({"$blob":")" + kHex.substr(1) + R"(","size":5})",                  // 63 hex
           R"({"$blob":")" + upper + R"(","size":5})",                           // upper case
           R"({"$blob":"../../../../etc/passwd","size":5})",                     // a path
           R"({"$blob":"../)" + kHex.substr(3) + R"(","size":5})",               // 64 chars, not hex
           R"({"$blob":")" + kHex + R"(","size":5,"extra":1})",                  // extra key
           R"({"$blob":")" + kHex + R"("})",                                     // no size
           R"({"size":5})",                                                      // no digest
           R"({"$blob":")" + kHex + R"(","size":-1})",                           // negative
           R"({"$blob":")" + kHex + R"(","size":5.0})",                          // fraction
           R"({"$blob":")" + kHex + R"(","size":5e0})",                          // exponent
           R"({"$blob":")" + kHex + R"(","size":"5"})",                          // string size
           R"({"$blob":")" + kHex + R"(","size":18446744073709551616})",         // overflow
           R"({"$blob":")" + kHex + R"(","size":5,"encoding":"hex"})",           // unknown encoding
           R"({"$blob":")" + kHex + R"(","size":5,"encoding":null})",            // wrong type
           R"({"$blob":")" + kHex + R"(","$blob":")" + kHex + R"(","size":5})",  // duplicate key
           R"({"$blob":")" + kHex + R"(","size":5,"size":5})",                   // duplicate key
           R"({"$blob":1,"size":5})",                                            // wrong type
           R"([")" + kHex + R"(",5])",                                           // not an object
       })
    EXPECT_FALSE(parse_reference_json(s)) << s;
}

TEST(Reference, FormatsCompactly) {
  const Reference r{*Digest::from_hex(kHex), 5, PayloadEncoding::None};
  EXPECT_EQ(format_reference(r), R"({"$blob":")" + kHex + R"(","size":5})");
  Reference e = r;
  e.encoding = PayloadEncoding::Text;
  EXPECT_EQ(format_reference(e), R"({"$blob":")" + kHex + R"(","size":5,"encoding":"text"})");
  EXPECT_EQ(parse_reference_json(format_reference(e)), e);
}

TEST(Reference, BlobUrls) {
  auto d = parse_blob_url("blob:sha256:" + kHex);
  ASSERT_TRUE(d);
  EXPECT_EQ(format_blob_url(*d), "blob:sha256:" + kHex);
  EXPECT_FALSE(parse_blob_url("blob:sha1:" + kHex));
  EXPECT_FALSE(parse_blob_url("blob:sha256:" + kHex + "/"));
  EXPECT_FALSE(parse_blob_url("blob:sha256:../" + kHex.substr(3)));
}

}  // namespace
}  // namespace jpblob
