#include "oneshot.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <iostream>
#include <optional>

#include "core/base/fs.hpp"
#include "core/git/git_repo.hpp"
#include "filter.hpp"

namespace jpblob {

namespace {

// Standard input that is a regular file (`git-jpblob clean < file`),
// mapped instead of read: a read copies every byte into memory the kernel
// must first clear, a quarter of a warm clean of 100 MB (perf: 23% in
// clear_page_erms, 13% after, all of it the decoded payloads' buffer;
// core/base/buffer.hpp). git's own filter driver gives a pipe,
// which is read. A file cut short while mapped would stop the process
// (SIGBUS), as it would git's own hashing of a mapped file; nothing is
// written before the input is whole in any case but a streamed output.
class StandardInput {
 public:
  StandardInput() {
    struct stat st {};
    if (::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= kMapFrom) {
      const off_t at = ::lseek(STDIN_FILENO, 0, SEEK_CUR);
      if (at == 0) {
        void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE,
                         STDIN_FILENO, 0);
        if (p != MAP_FAILED) {
          mapped_ = p;
          size_ = static_cast<std::size_t>(st.st_size);
          ::lseek(STDIN_FILENO, st.st_size, SEEK_SET);  // used up, as a read leaves it
          return;
        }
      }
    }
    read_ = read_all(STDIN_FILENO, "standard input");
  }
  ~StandardInput() {
    if (mapped_) ::munmap(mapped_, size_);
  }
  StandardInput(const StandardInput&) = delete;
  StandardInput& operator=(const StandardInput&) = delete;
  std::string_view bytes() const { return mapped_ ? std::string_view(static_cast<const char*>(mapped_), size_) : read_; }

 private:
  static constexpr off_t kMapFrom = 1 << 20;  // below that, a read is as cheap
  void* mapped_ = nullptr;
  std::size_t size_ = 0;
  std::string read_;
};

void run_oneshot(FilterMode mode, const FilterArgs& args) {
  std::optional<Filter> opened;
  try {
    opened.emplace(std::filesystem::current_path(), args.store_dir);
  } catch (const UnsupportedRepository& e) {
    // As filter-process does: the file goes through as it came.
    std::cerr << "git-jpblob: warning: " << e.what() << "; " << args.path << " passes through unchanged\n";
    const StandardInput input;
    write_all(STDOUT_FILENO, input.bytes(), "standard output");
    return;
  }
  Filter& filter = *opened;
  const StandardInput input;
  filter.run(mode, input.bytes(), args.path, [](std::string_view data) {
    write_all(STDOUT_FILENO, data, "standard output");
  });
  finish(filter.workspace());
}
}  // namespace

void run_clean(const FilterArgs& args) { run_oneshot(FilterMode::Clean, args); }
void run_smudge(const FilterArgs& args) { run_oneshot(FilterMode::Smudge, args); }

}  // namespace jpblob
