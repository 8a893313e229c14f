// `git-jpblob filter-process`: git's long-running filter protocol, version
// 2, with the clean, smudge and delay capabilities (gitattributes(5),
// long-running-process-protocol).
//
// One failed file, whatever the failure, is answered with status=error and
// the server goes on with the next; a broken stream (a truncated packet, an
// unknown handshake) ends the process with an Error. Each file is read whole
// before its answer is written, so the two pipes never fill at once and
// large files cannot deadlock. A smudge git lets wait ("can-delay=1") is
// answered "delayed" and restored on a pool of threads (filter/delayed);
// git fetches it after `list_available_blobs`, and its failure, if any, is
// answered then: listed after every other file, named on stderr when listed.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>

#include "filter.hpp"

namespace jpblob {

// Serves git on `in`/`out` until git closes the pipe. `on_ready`, when
// given, is called once with the opened filter after the handshake, so
// the caller can use the repository the filter already opened (its
// workspace()) and set the filter up (Filter::refuse_new_blobs).
void run_filter_process(int in, int out, const std::optional<std::filesystem::path>& store_dir,
                        const std::function<void(Filter&)>& on_ready = nullptr);

}  // namespace jpblob
