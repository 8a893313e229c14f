#include "cli/quiet.hpp"

#include <iostream>
#include <string>

namespace jpblob {

namespace {
bool quiet_flag = false;
}

void set_quiet(bool quiet) { quiet_flag = quiet; }
bool quiet() { return quiet_flag; }

void note(std::string_view line) {
  if (!quiet_flag) std::cerr << "git-jpblob: " + std::string(line) + "\n" << std::flush;
}

}  // namespace jpblob
