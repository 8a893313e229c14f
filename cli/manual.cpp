#include "manual.hpp"

#include <unistd.h>

#include <csignal>
#include <filesystem>

#include "core/base/trace.hpp"
#include "core/git/subprocess.hpp"

namespace jpblob {

void exec_manual_page(const std::string& page) {
  try {
    // Asking first keeps man's "No manual entry" off the screen: without
    // the page, the help text is the better answer.
    if (run_command({"man", "-w", page}, std::filesystem::current_path()).status != 0) return;
  } catch (const std::exception&) {
    return;  // no man program, or no current folder: fall back
  }
  std::signal(SIGPIPE, SIG_DFL);
  std::string name = page;
  char man[] = "man";
  char* argv[] = {man, name.data(), nullptr};
  JPBLOB_TRACE("exec: man" + quote_argv_pretty({name}));
  ::execvp(man, argv);
  std::signal(SIGPIPE, SIG_IGN);  // the caller's setting, for its fallback
}

}  // namespace jpblob
