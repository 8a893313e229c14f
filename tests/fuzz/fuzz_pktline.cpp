// Fuzzes the pkt-line reader: any byte stream gives packets or an Error.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>

#include "core/base/error.hpp"
#include "filter/pktline.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  int fds[2];
  if (::pipe(fds) != 0) std::abort();
  std::thread writer([&] {
    std::size_t off = 0;
    while (off < size) {
      const ssize_t n = ::write(fds[1], data + off, size - off);
      if (n <= 0) break;
      off += static_cast<std::size_t>(n);
    }
    ::close(fds[1]);
  });
  jpblob::PktReader reader(fds[0]);
  std::size_t total = 0;
  try {
    while (auto list = reader.read_list_or_eof()) {
      for (const auto& l : *list) total += l.size();
      total += reader.read_content().size();
    }
  } catch (const jpblob::Error&) {
  }
  writer.join();
  ::close(fds[0]);
  if (total > size) std::abort();  // never more payload than bytes in
  return 0;
}
