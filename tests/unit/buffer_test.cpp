// reserve_large (core/base/buffer): room for what is asked, grown at least
// twofold so that a buffer filled piece by piece is copied a few times, and
// the bytes already in it kept. The huge-page advice is a hint to the
// kernel, which may refuse it; what it saves is measured by the benchmark.
#include "core/base/buffer.hpp"

#include <gtest/gtest.h>

namespace jpblob {
namespace {

TEST(ReserveLarge, KeepsTheBytesAndMakesRoom) {
  std::string s = "conversation";
  reserve_large(s, 10u << 20);  // past the huge-page threshold
  EXPECT_EQ(s, "conversation");
  EXPECT_GE(s.capacity(), 10u << 20);
  s.append(std::string(10u << 20, 'x'));
  EXPECT_EQ(s.substr(0, 12), "conversation");
  EXPECT_EQ(s.size(), 12 + (10u << 20));
}

TEST(ReserveLarge, GrowsTwofoldSoPieceByPieceCopiesFewTimes) {
  std::string s;
  std::size_t reallocations = 0;
  const std::string piece(65516, 'p');  // one pkt-line's payload
  for (int i = 0; i < 2000; ++i) {
    const char* before = s.data();
    reserve_large(s, s.size() + piece.size());
    reallocations += s.data() != before;
    s.append(piece);
  }
  EXPECT_EQ(s.size(), 2000u * piece.size());
  EXPECT_LE(reallocations, 20u);  // log2(131 MB / 64 KiB) + a few
}

TEST(ReserveLarge, EnoughRoomChangesNothing) {
  std::string s;
  s.reserve(1000);
  s = "kept";
  const char* before = s.data();
  reserve_large(s, 500);
  EXPECT_EQ(s.data(), before);
  EXPECT_EQ(s, "kept");
}

}  // namespace
}  // namespace jpblob
