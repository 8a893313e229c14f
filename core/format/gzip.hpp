// Deterministic gzip (RFC 1952) for blob files.
//
// compress() writes one member with a fixed header (MTIME 0, no name, no
// comment, OS 255), so equal input at an equal level gives equal bytes on
// every machine. decompress() reads exactly one member, refuses trailing
// bytes, stops as soon as the output would pass `max_size` (gzip bombs), and
// checks CRC-32 and ISIZE from the trailer.
//
// Two libraries, each for what it does best. libdeflate compresses (two to
// three times zlib's speed at the same level, in one call on a buffer
// already in memory) and inflates where the size is known beforehand: a
// reference's size, a blob's gzip trailer (a hint, checked), a loose git
// object's header. zlib inflates with a limit, streamed, so a hostile blob
// stops at its declared size (libdeflate needs the output size up front),
// and reads the first bytes of a loose git object, for its header.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/base/error.hpp"

namespace jpblob {

// zlib levels 0..9; 6 is the default (git config jpblob.compressionLevel).
std::string gzip_compress(std::string_view data, int level = 6);

// The zlib format (RFC 1950) of `data`, as git stores each object,
// appended to `out`. Level 0 stores the bytes (deflate's stored blocks),
// written here in one copy: what gzip files and git's trees of ids need.
void zlib_compress_to(std::string& out, std::string_view data, int level);
std::string zlib_compress(std::string_view data, int level);

// The first bytes (at most `n`) that the zlib stream `z` inflates to, or
// nullopt when they cannot be had: for reading a header (a loose git
// object's "blob <size>") before the size of the whole is known.
std::optional<std::string> zlib_peek(std::string_view z, std::size_t n);

// The content of the zlib stream `z` when it is exactly one stream
// (nothing after it) of exactly `size` bytes, its Adler-32 included;
// nullopt otherwise, with no reason. One call into a buffer of that size
// (libdeflate, two to three times zlib's speed). The caller bounds `size`.
std::optional<std::string> zlib_decompress_exact(std::string_view z, std::size_t size);

// The data would inflate past the limit it was given (a gzip bomb, or more
// than a reference declares): a kind of its own, so callers can say why in
// their own words without reading this message.
class GzipTooLarge : public Error {
 public:
  using Error::Error;
};

// Calls `sink` with consecutive pieces of the inflated bytes. Throws
// GzipTooLarge ("gzip trailer declares N bytes, more than the M allowed",
// "gzip data inflates past M bytes") or Error ("corrupt gzip: …") on any
// problem;
// the sink may already have seen a prefix by then, so callers must treat the
// whole output as void on a throw.
void gzip_decompress(std::string_view gz, std::uint64_t max_size,
                     const std::function<void(std::string_view)>& sink);

std::string gzip_decompress(std::string_view gz, std::uint64_t max_size);

// The content of `gz` when it is exactly one gzip member (nothing after it)
// of exactly `size` bytes, CRC-32 and ISIZE included; nullopt otherwise,
// with no reason (inflate with gzip_decompress for one). One call into a
// buffer of the known size: for readers that know the size, such as a
// reference's. The caller bounds `size`: it is allocated up front.
std::optional<std::string> gzip_decompress_exact(std::string_view gz, std::size_t size);

// The size a gzip member's trailer declares (ISIZE, the size modulo
// 2^32) where it is at most `max_size` and what ordinary data inflates to
// (64:1), so that a bomb's trailer buys no memory; nullopt otherwise, or
// when `gz` is too short to be a member. Input, not a promise: a size to
// reserve, or to try gzip_decompress_exact with, which checks it.
std::optional<std::uint64_t> gzip_plausible_size(std::string_view gz, std::uint64_t max_size);

// True when `gz` is exactly one gzip member (nothing after it) whose
// content is `expected`, CRC-32 and ISIZE included. Faster than inflating
// into a string and hashing: one call into a buffer of the known size and a
// comparison. For checking a file that claims to hold known bytes.
bool gzip_holds(std::string_view gz, std::string_view expected);

// What a gzip member's trailer declares (ISIZE, the size modulo 2^32),
// unchecked, for saying how large a file claims to be; nullopt when `gz`
// is too short to be a member. Never a bound by itself: a trailer can lie.
std::optional<std::uint64_t> gzip_declared_size(std::string_view gz);

}  // namespace jpblob
