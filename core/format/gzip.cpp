#include "core/format/gzip.hpp"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <memory>

#include "core/base/buffer.hpp"
#include "core/base/error.hpp"

namespace jpblob {

namespace {

constexpr unsigned char kFlagHcrc = 0x02, kFlagExtra = 0x04, kFlagName = 0x08,
                        kFlagComment = 0x10;

Error corrupt(const std::string& why) { return Error("corrupt gzip: " + why); }

void put_le32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint32_t get_le32(const unsigned char* p) {
  return std::uint32_t(p[0]) | std::uint32_t(p[1]) << 8 | std::uint32_t(p[2]) << 16 |
         std::uint32_t(p[3]) << 24;
}

constexpr std::size_t kMaxHeaderFields = 4096;

// Length of the member header, accepting the optional fields other writers
// (JP itself, gzip(1)) may set, so their blobs stay readable.
std::size_t header_length(std::string_view gz) {
  auto* p = reinterpret_cast<const unsigned char*>(gz.data());
  if (gz.size() < 18) throw corrupt("file is too short to be gzip");
  if (p[0] != 0x1f || p[1] != 0x8b) throw corrupt("bad magic bytes");
  if (p[2] != 8) throw corrupt("compression method is not deflate");
  unsigned char flags = p[3];
  if (flags & 0xe0) throw corrupt("reserved header flags are set");
  std::size_t pos = 10;
  auto need = [&](std::size_t n) {
    if (gz.size() < pos + n + 8) throw corrupt("truncated header");
  };
  if (flags & kFlagExtra) {
    need(2);
    std::size_t xlen = p[pos] | p[pos + 1] << 8;
    pos += 2;
    need(xlen);
    pos += xlen;
  }
  for (unsigned char f : {kFlagName, kFlagComment}) {
    if (!(flags & f)) continue;
    auto end = gz.find('\0', pos);
    if (end == std::string_view::npos) throw corrupt("truncated header");
    pos = end + 1;
  }
  if (flags & kFlagHcrc) {
    need(2);
    pos += 2;
  }
  need(0);
  // A name or a comment is a few bytes; megabytes there would ride along
  // under a name that checks out, since the check is of the content.
  if (pos > 10 + kMaxHeaderFields) throw corrupt("its header's optional fields take over 4 KiB");
  return pos;
}

// zlib's inflate state: raw deflate by default (a gzip member's body),
// MAX_WBITS for the zlib format.
struct InflateStream {
  z_stream z{};
  explicit InflateStream(int window_bits = -MAX_WBITS) {
    if (inflateInit2(&z, window_bits) != Z_OK) throw Error("cannot initialise zlib inflate");
  }
  ~InflateStream() { inflateEnd(&z); }
};

// libdeflate compresses two to three times faster than zlib at the same
// level, in one call on the whole buffer (payloads are in memory anyway).
// A compressor is not thread-safe and costs some memory to set up: one per
// thread and level, kept.
libdeflate_compressor* compressor(int level) {
  struct Free {
    void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
  };
  thread_local std::array<std::unique_ptr<libdeflate_compressor, Free>, 10> compressors;
  auto& c = compressors[static_cast<std::size_t>(level)];
  if (!c) c.reset(libdeflate_alloc_compressor(level));
  if (!c) throw Error("cannot set up deflate at level " + std::to_string(level) + ": out of memory");
  return c.get();
}

}  // namespace

std::string gzip_compress(std::string_view data, int level) {
  if (level < 0 || level > 9) throw Error("compression level " + std::to_string(level) +
                                          " is out of range 0..9");
  libdeflate_compressor* c = compressor(level);
  std::string out;
  // XFL records the level class like gzip(1) does; it is part of the fixed header.
  const char xfl = level == 9 ? 2 : (level == 1 ? 4 : 0);
  out.append("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8);
  out.push_back(xfl);
  out.push_back(static_cast<char>(0xff));
  const std::size_t header = out.size();
  const std::size_t bound = libdeflate_deflate_compress_bound(c, data.size());
  out.resize(header + bound);
  const std::size_t n = libdeflate_deflate_compress(c, data.data(), data.size(), out.data() + header, bound);
  if (n == 0) throw Error("deflate failed");  // cannot happen within the bound
  out.resize(header + n);
  put_le32(out, libdeflate_crc32(0, data.data(), data.size()));
  put_le32(out, static_cast<std::uint32_t>(data.size() & 0xffffffffu));
  return out;
}

void zlib_compress_to(std::string& out, std::string_view data, int level) {
  if (level < 0 || level > 9) throw Error("compression level " + std::to_string(level) +
                                          " is out of range 0..9");
  const std::size_t start = out.size();
  if (level == 0) {
    // Stored blocks of at most 65,535 bytes, each behind its 5-byte header
    // (final bit, type 00, LEN, NLEN), then the Adler-32 of the data, big
    // endian (RFC 1951 3.2.4, RFC 1950). libdeflate's level 0 makes the
    // same stream into a zeroed buffer of the bound, copied again after.
    constexpr std::size_t kBlock = 65535;
    out.reserve(start + 2 + data.size() + 5 * (data.size() / kBlock + 1) + 4);
    out.append("\x78\x01", 2);  // deflate, 32 KiB window; 0x7801 is a multiple of 31
    std::size_t at = 0;
    do {
      const std::size_t n = std::min(kBlock, data.size() - at);
      const bool last = at + n == data.size();
      const char header[5] = {static_cast<char>(last ? 1 : 0), static_cast<char>(n & 0xff), static_cast<char>(n >> 8),
                              static_cast<char>(~n & 0xff), static_cast<char>((~n >> 8) & 0xff)};
      out.append(header, 5).append(data.substr(at, n));
      at += n;
    } while (at < data.size());
    const std::uint32_t adler = libdeflate_adler32(1, data.data(), data.size());
    for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((adler >> shift) & 0xff));
    return;
  }
  libdeflate_compressor* c = compressor(level);
  out.resize(start + libdeflate_zlib_compress_bound(c, data.size()));
  const std::size_t n = libdeflate_zlib_compress(c, data.data(), data.size(), out.data() + start, out.size() - start);
  if (n == 0) throw Error("deflate failed");  // cannot happen within the bound
  out.resize(start + n);
}

std::string zlib_compress(std::string_view data, int level) {
  std::string out;
  zlib_compress_to(out, data, level);
  return out;
}

void gzip_decompress(std::string_view gz, std::uint64_t max_size,
                     const std::function<void(std::string_view)>& sink) {
  const std::size_t start = header_length(gz);
  // A cheap early refusal: ISIZE is the size modulo 2^32, so it can only
  // prove a mismatch when the limit is below 4 GiB.
  const auto* tail = reinterpret_cast<const unsigned char*>(gz.data() + gz.size() - 8);
  if (max_size < (std::uint64_t{1} << 32) && get_le32(tail + 4) > max_size)
    throw GzipTooLarge("gzip trailer declares " + std::to_string(get_le32(tail + 4)) + " bytes, more than the " +
                       std::to_string(max_size) +
                       " allowed (or the file is cut short, and its last bytes are not a trailer)");

  InflateStream s;
  s.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data() + start));
  s.z.avail_in = static_cast<uInt>(gz.size() - start - 8);
  if (gz.size() - start - 8 > UINT32_MAX) throw corrupt("file is larger than 4 GiB");
  // A buffer the size the trailer declares (most blobs are a few KiB), at
  // most 256 KiB, and not zeroed: a fresh zeroed 256 KiB a blob cost more
  // than inflating it. A lying trailer only means more rounds.
  const std::size_t kChunk =
      std::clamp<std::size_t>(static_cast<std::size_t>(get_le32(tail + 4)) + 1, 4096, 256 * 1024);
  auto buf = std::make_unique_for_overwrite<char[]>(kChunk);
  std::uint64_t total = 0;
  uLong crc = crc32(0L, Z_NULL, 0);
  int rc = Z_OK;
  while (rc != Z_STREAM_END) {
    s.z.next_out = reinterpret_cast<Bytef*>(buf.get());
    s.z.avail_out = kChunk;
    rc = inflate(&s.z, Z_NO_FLUSH);
    if (rc == Z_NEED_DICT || rc == Z_DATA_ERROR || rc == Z_MEM_ERROR || rc == Z_STREAM_ERROR)
      throw corrupt(s.z.msg ? s.z.msg : "invalid deflate data");
    const std::size_t produced = kChunk - s.z.avail_out;
    if (rc == Z_BUF_ERROR && produced == 0) throw corrupt("deflate data is truncated");
    total += produced;
    if (total > max_size)
      throw GzipTooLarge("gzip data inflates past " + std::to_string(max_size) + " bytes");
    crc = crc32_z(crc, reinterpret_cast<Bytef*>(buf.get()), produced);
    if (produced) sink(std::string_view(buf.get(), produced));
  }
  if (s.z.avail_in != 0) throw corrupt("unexpected bytes between the deflate data and the trailer");
  if (get_le32(tail) != static_cast<std::uint32_t>(crc)) throw corrupt("CRC-32 mismatch");
  if (get_le32(tail + 4) != static_cast<std::uint32_t>(total & 0xffffffffu))
    throw corrupt("ISIZE mismatch");
}

std::string gzip_decompress(std::string_view gz, std::uint64_t max_size) {
  std::string out;
  if (const auto size = gzip_plausible_size(gz, max_size)) out.reserve(static_cast<std::size_t>(*size));
  gzip_decompress(gz, max_size, [&](std::string_view piece) { out.append(piece); });
  return out;
}

namespace {
// One libdeflate decompressor a thread, made on first use.
libdeflate_decompressor* decompressor() {
  struct Free {
    void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
  };
  thread_local std::unique_ptr<libdeflate_decompressor, Free> d(libdeflate_alloc_decompressor());
  if (!d) throw Error("cannot set up inflate: out of memory");
  return d.get();
}

// `inflate` (libdeflate's gzip or zlib call) of `in` into exactly `size`
// bytes, every input byte used; nullopt otherwise.
template <typename Inflate>
std::optional<std::string> decompress_exact(std::string_view in, std::size_t size, Inflate inflate) {
  libdeflate_decompressor* d = decompressor();
  std::string out;
  reserve_large(out, size);
  out.resize(size);
  char none = 0;
  std::size_t used_in = 0, produced = 0;
  const auto rc = inflate(d, in.data(), in.size(), out.empty() ? &none : out.data(), out.size(), &used_in, &produced);
  if (rc != LIBDEFLATE_SUCCESS || used_in != in.size() || produced != size) return std::nullopt;
  return out;
}
}  // namespace

std::optional<std::string> gzip_decompress_exact(std::string_view gz, std::size_t size) {
  return decompress_exact(gz, size, libdeflate_gzip_decompress_ex);
}

std::optional<std::string> zlib_decompress_exact(std::string_view z, std::size_t size) {
  return decompress_exact(z, size, libdeflate_zlib_decompress_ex);
}

std::optional<std::string> zlib_peek(std::string_view z, std::size_t n) {
  InflateStream s(MAX_WBITS);
  std::string out(n, '\0');
  s.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(z.data()));
  s.z.avail_in = static_cast<uInt>(std::min<std::size_t>(z.size(), UINT32_MAX));
  s.z.next_out = reinterpret_cast<Bytef*>(out.data());
  s.z.avail_out = static_cast<uInt>(n);
  const int rc = inflate(&s.z, Z_SYNC_FLUSH);
  if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) return std::nullopt;
  out.resize(n - s.z.avail_out);
  return out;
}

std::optional<std::uint64_t> gzip_plausible_size(std::string_view gz, std::uint64_t max_size) {
  if (gz.size() < 18) return std::nullopt;  // a 10-byte header, an empty deflate stream, the trailer
  const std::uint64_t declared = get_le32(reinterpret_cast<const unsigned char*>(gz.data() + gz.size() - 4));
  if (declared > max_size || declared > std::uint64_t{gz.size()} * 64 + 65536) return std::nullopt;
  return declared;
}

std::optional<std::uint64_t> gzip_declared_size(std::string_view gz) {
  if (gz.size() < 18) return std::nullopt;
  return get_le32(reinterpret_cast<const unsigned char*>(gz.data() + gz.size() - 4));
}

bool gzip_holds(std::string_view gz, std::string_view expected) {
  const auto out = gzip_decompress_exact(gz, expected.size());
  return out && *out == expected;
}

}  // namespace jpblob
