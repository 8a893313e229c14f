#include "gzip_bomb.hpp"

namespace jpblob::test {

namespace {

class BitWriter {
 public:
  // Huffman codes go most-significant bit first; header fields least first.
  void code(std::uint32_t value, int count) {
    for (int i = count - 1; i >= 0; --i) bit((value >> i) & 1);
  }
  void bits(std::uint32_t value, int count) {
    for (int i = 0; i < count; ++i) bit((value >> i) & 1);
  }
  void match258() {
    code(0xc5, 8);  // fixed-Huffman length code 285: 258 bytes
    code(0, 5);     // distance code 0: distance 1
  }
  std::string finish() {
    if (used_) out_.push_back(static_cast<char>(cur_));
    cur_ = 0;
    used_ = 0;
    return std::move(out_);
  }

 private:
  void bit(std::uint32_t b) {
    cur_ |= b << used_;
    if (++used_ == 8) {
      out_.push_back(static_cast<char>(cur_));
      cur_ = 0;
      used_ = 0;
    }
  }
  std::string out_;
  std::uint32_t cur_ = 0;
  int used_ = 0;
};

}  // namespace

std::string make_gzip_bomb(std::uint64_t inflated, std::uint32_t claimed_isize) {
  std::uint64_t matches = inflated > 1 ? (inflated - 1) / 258 : 0;
  BitWriter w;
  w.bits(1, 1);     // BFINAL
  w.bits(1, 2);     // BTYPE 01: fixed Huffman
  w.code(0x30, 8);  // literal byte 0
  // 11 bits + one 13-bit match = 24 bits: byte-aligned from here on.
  std::string deflate;
  if (matches > 0) {
    w.match258();
    --matches;
  }
  deflate = w.finish();
  // Eight matches are 104 bits = 13 whole bytes: tile them.
  BitWriter unit_writer;
  for (int i = 0; i < 8; ++i) unit_writer.match258();
  const std::string unit = unit_writer.finish();
  deflate.reserve(deflate.size() + matches / 8 * unit.size() + 16);
  for (; matches >= 8; matches -= 8) deflate += unit;
  BitWriter tail;
  for (; matches > 0; --matches) tail.match258();
  tail.code(0, 7);  // end of block
  deflate += tail.finish();

  std::string gz("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10);
  gz += deflate;
  gz.append(4, '\0');  // CRC-32: a reader must stop at its limit long before
  for (int i = 0; i < 4; ++i) gz.push_back(static_cast<char>((claimed_isize >> (8 * i)) & 0xff));
  return gz;
}

}  // namespace jpblob::test
