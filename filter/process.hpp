// `git-jpblob filter-process`: git's long-running filter protocol, version
// 2, with the clean and smudge capabilities (gitattributes(5),
// long-running-process-protocol).
//
// One failed file is answered with status=error and the server goes on with
// the next; a broken stream (a truncated packet, an unknown handshake) ends
// the process with an Error. Each file is read whole before its answer is
// written, so the two pipes never fill at once and large files cannot
// deadlock.
#pragma once

#include <filesystem>
#include <optional>

namespace jpblob {

// Serves git on `in`/`out` until git closes the pipe.
void run_filter_process(int in, int out, const std::optional<std::filesystem::path>& store_dir);

}  // namespace jpblob
