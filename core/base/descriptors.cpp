#include "core/base/descriptors.hpp"

#include <sys/resource.h>

#include <algorithm>

namespace jpblob {

namespace {
constexpr std::size_t kUnlimited = std::size_t{1} << 20;
}

std::size_t descriptor_limit() {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return kUnlimited;
  return static_cast<std::size_t>(std::min<rlim_t>(limit.rlim_cur, kUnlimited));
}

std::size_t spare_descriptors() {
  const std::size_t limit = descriptor_limit();
  return limit > kDescriptorHeadroom + 1 ? limit - kDescriptorHeadroom : 1;
}

std::size_t worker_slots() { return std::max<std::size_t>(1, spare_descriptors() / 4 / kDescriptorsPerWorker); }

}  // namespace jpblob
