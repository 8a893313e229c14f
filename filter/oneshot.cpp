#include "oneshot.hpp"

#include <unistd.h>

#include "core/base/fs.hpp"
#include "filter.hpp"

namespace jpblob {

namespace {
void run_oneshot(FilterMode mode, const FilterArgs& args) {
  Filter filter(std::filesystem::current_path(), args.store_dir);
  const std::string input = read_all(STDIN_FILENO, "standard input");
  filter.run(mode, input, args.path, [](std::string_view data) {
    write_all(STDOUT_FILENO, data, "standard output");
  });
  finish(filter.workspace());
}
}  // namespace

void run_clean(const FilterArgs& args) { run_oneshot(FilterMode::Clean, args); }
void run_smudge(const FilterArgs& args) { run_oneshot(FilterMode::Smudge, args); }

}  // namespace jpblob
