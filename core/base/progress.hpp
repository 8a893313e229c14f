// How long work reports its progress: (what, done, total). The CLI draws a
// git-style progress line from it; core/ never prints.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace jpblob {

using Progress = std::function<void(std::string_view, std::size_t, std::size_t)>;

}  // namespace jpblob
