#include "core/base/error.hpp"

#include <cstring>

namespace jpblob {

Error errno_error(const std::string& what, int err) {
  return Error(what + ": " + std::strerror(err));
}

}  // namespace jpblob
