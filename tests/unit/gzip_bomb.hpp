// Builds gzip bombs for tests: a few megabytes that inflate to gigabytes.
#pragma once

#include <cstdint>
#include <string>

namespace jpblob::test {

// One gzip member whose deflate data is a single fixed-Huffman block: one
// zero literal, then enough (length 258, distance 1) matches to reach
// `inflated` bytes. ISIZE is written as `claimed_isize` so tests can make a
// bomb that lies about its size. The CRC is left zero: the reader must stop
// at its limit long before it could check it.
std::string make_gzip_bomb(std::uint64_t inflated, std::uint32_t claimed_isize);

}  // namespace jpblob::test
