// git's convention for a closed pipe (`git jpblob print … | head -1`): the
// command ends quietly, as if killed by SIGPIPE (status 141 in a shell), no
// message. This program ignores SIGPIPE so that writes fail with EPIPE
// instead (a filter must report git dying), and asks here afterwards
// whether that is what happened to its output.
#pragma once

namespace jpblob {

// True when `fd` is the writing end of a pipe or socket whose reader is
// gone (poll reports POLLERR or POLLHUP on it). Never blocks.
bool reader_gone(int fd);

// Ends the process the way git ends on a closed pipe: SIGPIPE with its
// default action, status 141 should it be blocked. Writes nothing.
[[noreturn]] void die_of_closed_pipe();

}  // namespace jpblob
