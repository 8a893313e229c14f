#include "core/format/gzip.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include "core/base/error.hpp"
#include "gzip_bomb.hpp"

namespace jpblob {
namespace {

std::string sample() {
  std::string s;
  for (int i = 0; i < 5000; ++i) s += "line " + std::to_string(i) + " of some tool output\n";
  return s;
}

TEST(Gzip, HeaderIsFixedSoEqualInputGivesEqualBytes) {
  const std::string gz = gzip_compress(sample(), 6);
  ASSERT_GE(gz.size(), 18u);
  // magic, deflate, no flags, MTIME 0, XFL 0, OS 255
  EXPECT_EQ(gz.substr(0, 10), std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10));
  EXPECT_EQ(gz, gzip_compress(sample(), 6));
  EXPECT_EQ(gzip_compress("x", 9)[8], '\x02');
  EXPECT_EQ(gzip_compress("x", 1)[8], '\x04');
}

TEST(Gzip, RoundTripsIncludingEmptyAndBinary) {
  std::string binary;
  for (int i = 0; i < 70000; ++i) binary.push_back(static_cast<char>(i * 7919 % 256));
  for (const std::string& s : {std::string(), std::string("a"), sample(), binary})
    for (int level : {0, 1, 6, 9}) EXPECT_EQ(gzip_decompress(gzip_compress(s, level), s.size()), s);
}

TEST(Gzip, OutputIsReadableByZlibItself) {
  const std::string gz = gzip_compress(sample());
  std::string out(sample().size(), '\0');
  z_stream z{};
  ASSERT_EQ(inflateInit2(&z, 16 + MAX_WBITS), Z_OK);
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
  inflateEnd(&z);
  EXPECT_EQ(out, sample());
}

// git inflates each object with zlib: the stored blocks written by hand
// (level 0) must be what zlib reads back, across a block's end (65,535
// bytes), appended after what the buffer held, with an Adler-32 zlib checks.
TEST(Gzip, ZlibStreamsOfEveryLevelInflateWithZlibAfterWhatWasThere) {
  std::string binary;
  for (int i = 0; i < 200000; ++i) binary.push_back(static_cast<char>(i * 7919 % 251));
  for (const std::size_t size : {std::size_t{0}, std::size_t{1}, std::size_t{65534}, std::size_t{65535},
                                 std::size_t{65536}, std::size_t{131070}, std::size_t{200000}})
    for (int level : {0, 1, 6}) {
      const std::string data = binary.substr(0, size);
      std::string out = "before";
      zlib_compress_to(out, data, level);
      ASSERT_EQ(out.substr(0, 6), "before");
      EXPECT_EQ(out.substr(6), zlib_compress(data, level));
      std::string back(size + 1, '\0');
      uLongf back_size = back.size();
      ASSERT_EQ(uncompress(reinterpret_cast<Bytef*>(back.data()), &back_size,
                           reinterpret_cast<const Bytef*>(out.data() + 6), out.size() - 6),
                Z_OK)
          << "size " << size << " level " << level;
      EXPECT_EQ(back.substr(0, back_size), data) << "size " << size << " level " << level;
      if (level == 0) {
        EXPECT_EQ(out.size() - 6, 2 + size + 5 * (size / 65535 + (size % 65535 || size == 0 ? 1 : 0)) + 4);
        // A flipped byte of data fails zlib's Adler-32 check.
        if (size > 0) {
          std::string bad = out.substr(6);
          bad[7] = static_cast<char>(bad[7] ^ 1);
          EXPECT_EQ(uncompress(reinterpret_cast<Bytef*>(back.data()), &back_size,
                               reinterpret_cast<const Bytef*>(bad.data()), bad.size()),
                    Z_DATA_ERROR);
        }
      }
    }
}

// Other writers may set a name or a comment (read as they are), but the
// content is what a blob's name vouches for: megabytes in the header would
// ride along under a name that checks out (red team). Over 4 KiB of
// optional fields is refused.
TEST(Gzip, HeaderFieldsAreReadButBounded) {
  const std::string body = gzip_compress("payload", 6).substr(10);  // deflate data and trailer
  const auto with_comment = [&](std::size_t n) {
    std::string gz = "\x1f\x8b\x08\x10";  // FCOMMENT
    gz += std::string("\0\0\0\0\0\xff", 6);
    gz += std::string(n, 'c') + std::string(1, '\0');
    return gz + body;
  };
  EXPECT_EQ(gzip_decompress(with_comment(100), 1024), "payload");
  EXPECT_THROW(gzip_decompress(with_comment(2000000), 1024), Error);
}

TEST(Gzip, RejectsBadLevel) { EXPECT_THROW(gzip_compress("x", 10), Error); }

void expect_corrupt(const std::string& gz, const std::string& why) {
  try {
    gzip_decompress(gz, 1 << 20);
    FAIL() << "accepted corrupt gzip: " << why;
  } catch (const Error& e) {
    // A truncated file's "trailer" is garbage that may claim any size.
    const std::string msg = e.what();
    EXPECT_TRUE(msg.find("corrupt gzip") != std::string::npos ||
                msg.find("trailer declares") != std::string::npos)
        << msg;
  }
}

TEST(Gzip, DetectsCorruption) {
  const std::string good = gzip_compress(sample());
  std::string crc = good;
  crc[crc.size() - 6] ^= 1;
  expect_corrupt(crc, "CRC");
  std::string isize = good;
  isize[isize.size() - 3] ^= 1;
  expect_corrupt(isize, "ISIZE");
  std::string body = good;
  body[body.size() / 2] ^= 0x55;
  expect_corrupt(body, "deflate body");
  expect_corrupt(good.substr(0, good.size() - 20), "truncated");
  expect_corrupt(good.substr(0, 12), "too short");
  expect_corrupt("not gzip at all, not even close", "magic");
  expect_corrupt(good + gzip_compress("second member"), "two members");
  expect_corrupt(good + std::string("garbage"), "trailing garbage");
}

TEST(Gzip, StopsAtTheLimit) {
  const std::string data(1000, 'x');
  EXPECT_THROW(gzip_decompress(gzip_compress(data), 999), Error);
  EXPECT_EQ(gzip_decompress(gzip_compress(data), 1000), data);
}

TEST(Gzip, BombThatClaimsItsRealSizeIsRefusedBeforeInflating) {
  // 2 GiB of zeros in a few MB; ISIZE tells the truth (mod 2^32).
  const std::uint64_t size = std::uint64_t{2} << 30;
  const std::string bomb = test::make_gzip_bomb(size, static_cast<std::uint32_t>(size));
  EXPECT_LT(bomb.size(), 16u << 20);
  std::uint64_t seen = 0;
  try {
    gzip_decompress(bomb, 1 << 20, [&](std::string_view p) { seen += p.size(); });
    FAIL() << "bomb inflated";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("trailer declares 2147483648 bytes"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(seen, 0u);
}

// A file cut short ends in deflate data, which the early refusal reads as
// a trailer: the message says it may be that.
TEST(Gzip, AFileCutShortIsNamedAsPossiblyThat) {
  std::string text;
  std::uint32_t state = 7;
  while (text.size() < 100000) text += static_cast<char>('a' + ((state = state * 1103515245 + 12345) >> 16) % 26);
  const std::string gz = gzip_compress(text);
  std::size_t cut = gz.size() / 2;
  const auto isize = [&](std::size_t n) {
    const auto* p = reinterpret_cast<const unsigned char*>(gz.data() + n - 4);
    return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
  };
  while (isize(cut) <= (1u << 20)) ++cut;  // where the bytes there read as more than the limit
  try {
    gzip_decompress(gz.substr(0, cut), 1 << 20);
    FAIL() << "a file cut short inflated";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cut short"), std::string::npos) << e.what();
  }
}

TEST(Gzip, BombThatLiesAboutItsSizeStopsAtTheLimit) {
  const std::uint64_t size = std::uint64_t{2} << 30;
  const std::string bomb = test::make_gzip_bomb(size, 10);
  std::uint64_t seen = 0;
  try {
    gzip_decompress(bomb, 4 << 20, [&](std::string_view p) { seen += p.size(); });
    FAIL() << "bomb inflated";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("inflates past"), std::string::npos) << e.what();
  }
  // It stopped within one buffer of the limit, not after gigabytes.
  EXPECT_LE(seen, (4u << 20) + (1u << 20));
}

TEST(Gzip, BombGeneratorReallyInflates) {
  // Guards the two tests above: a bomb with an honest trailer but no CRC
  // must inflate to exactly its size before failing on the CRC.
  const std::string bomb = test::make_gzip_bomb(1 << 20, 1 << 20);
  std::uint64_t seen = 0;
  try {
    gzip_decompress(bomb, 1 << 20, [&](std::string_view p) { seen += p.size(); });
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("CRC"), std::string::npos) << e.what();
  }
  EXPECT_EQ(seen, ((1u << 20) - 1) / 258 * 258 + 1);
}

}  // namespace
}  // namespace jpblob

namespace jpblob {
namespace {

TEST(GzipHolds, OnlyOneMemberOfExactlyTheBytes) {
  const std::string bytes = "the bytes a blob file claims to hold";
  const std::string gz = gzip_compress(bytes, 6);
  EXPECT_TRUE(gzip_holds(gz, bytes));
  EXPECT_TRUE(gzip_holds(gzip_compress("", 6), ""));
  EXPECT_FALSE(gzip_holds(gz, "the bytes a blob file claims to hole"));  // same size, other content
  EXPECT_FALSE(gzip_holds(gz, bytes + "!"));
  EXPECT_FALSE(gzip_holds(gz + gz, bytes + bytes));  // a second member
  EXPECT_FALSE(gzip_holds(gz + "x", bytes));          // trailing data
  std::string flipped = gz;
  flipped[12] ^= 1;
  EXPECT_FALSE(gzip_holds(flipped, bytes));
  EXPECT_FALSE(gzip_holds("garbage", bytes));
}

TEST(GzipDecompressExact, OneMemberOfExactlyTheSizeOrNothing) {
  const std::string bytes = "a blob whose reference declares its size";
  const std::string gz = gzip_compress(bytes, 6);
  EXPECT_EQ(gzip_decompress_exact(gz, bytes.size()), bytes);
  EXPECT_EQ(gzip_decompress_exact(gzip_compress("", 6), 0), "");
  EXPECT_EQ(gzip_decompress_exact(gz, bytes.size() - 1), std::nullopt);  // more than declared
  EXPECT_EQ(gzip_decompress_exact(gz, bytes.size() + 1), std::nullopt);  // less than declared
  EXPECT_EQ(gzip_decompress_exact(gz + gz, 2 * bytes.size()), std::nullopt);
  EXPECT_EQ(gzip_decompress_exact(gz + "x", bytes.size()), std::nullopt);
  std::string flipped = gz;
  flipped[flipped.size() - 6] ^= 1;  // the CRC-32
  EXPECT_EQ(gzip_decompress_exact(flipped, bytes.size()), std::nullopt);
}

}  // namespace
}  // namespace jpblob
