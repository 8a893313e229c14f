// Fuzzes gzip input: any bytes must give data or an Error, within the limit.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "core/base/error.hpp"
#include "core/format/gzip.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view gz(reinterpret_cast<const char*>(data), size);
  std::uint64_t total = 0;
  try {
    jpblob::gzip_decompress(gz, 1 << 20, [&](std::string_view p) { total += p.size(); });
  } catch (const jpblob::Error&) {
  }
  if (total > (1u << 20) + (256u << 10)) std::abort();
  return 0;
}
