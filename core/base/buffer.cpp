#include "core/base/buffer.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>

namespace jpblob {

namespace {
constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

// The whole huge pages inside [p, p + n): a hint, so a kernel that has no
// huge pages (or refuses) changes nothing.
void advise_huge_pages(char* p, std::size_t n) {
  const auto at = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t begin = (at + kHugePage - 1) & ~(kHugePage - 1);
  const std::uintptr_t end = (at + n) & ~(kHugePage - 1);
  if (end > begin) ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}
}  // namespace

std::unique_ptr<char[]> allocate_large(std::size_t n) {
  auto p = std::make_unique_for_overwrite<char[]>(n);
  if (n >= 2 * kHugePage) advise_huge_pages(p.get(), n);
  return p;
}

void reserve_large(std::string& s, std::size_t n) {
  if (n <= s.capacity()) return;
  std::string grown;
  grown.reserve(std::max(n, s.capacity() * 2));
  if (grown.capacity() >= 2 * kHugePage) advise_huge_pages(grown.data(), grown.capacity());
  grown.append(s);
  s.swap(grown);
}

}  // namespace jpblob
