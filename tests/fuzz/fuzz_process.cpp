// Fuzzes the filter-process server with whole sessions: after git's
// handshake, the input is the rest of what git sends (requests, metadata,
// file contents, flushes, in any order and any shape). The server must
// answer each file or end with an Error on a broken stream, never crash,
// and never hang (its output is drained as git would drain it).
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <thread>

#include "core/base/error.hpp"
#include "filter/process.hpp"
#include "fuzz_store.hpp"

namespace {

// "git-filter-client", "version=2", flush; "capability=clean",
// "capability=smudge", "capability=delay", flush: what git 2.15 and later
// send first. With delay offered, smudges with "can-delay=1" go through
// the pool and list_available_blobs (filter/delayed).
const std::string kHandshake =
    "0016git-filter-client\n000eversion=2\n0000"
    "0015capability=clean\n0016capability=smudge\n0015capability=delay\n0000";

void write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n <= 0) return;  // the server stopped reading: it ended
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // A throwaway store: no fsync (git -c jpblob.fsync=false).
  ::setenv("GIT_CONFIG_PARAMETERS", "'jpblob.fsync'='false'", 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Blobs one session's clean writes are what its smudges read back.
  const std::filesystem::path storage = jpblob::fuzz::store().root().parent_path();
  int to[2], from[2];
  if (::pipe(to) != 0 || ::pipe(from) != 0) std::abort();
  std::thread git_writes([&] {
    write_all(to[1], kHandshake.data(), kHandshake.size());
    write_all(to[1], reinterpret_cast<const char*>(data), size);
    ::close(to[1]);
  });
  std::size_t answered = 0;
  std::thread git_reads([&] {
    char buf[65536];
    for (ssize_t n; (n = ::read(from[0], buf, sizeof buf)) > 0;) answered += static_cast<std::size_t>(n);
    ::close(from[0]);
  });
  try {
    jpblob::run_filter_process(to[0], from[1], storage);
  } catch (const jpblob::Error&) {
    // A broken stream: git would see the server end.
  }
  ::close(to[0]);
  ::close(from[1]);
  git_writes.join();
  git_reads.join();
  if (answered == 0) std::abort();  // the handshake is always answered
  return 0;
}
