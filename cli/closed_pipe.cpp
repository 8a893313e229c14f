#include "closed_pipe.hpp"

#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

namespace jpblob {

bool reader_gone(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) return false;
  pollfd p{fd, POLLOUT, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP)) != 0;
}

void die_of_closed_pipe() {
  std::signal(SIGPIPE, SIG_DFL);
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  ::sigprocmask(SIG_UNBLOCK, &set, nullptr);
  std::raise(SIGPIPE);
  ::_exit(141);
}

}  // namespace jpblob
