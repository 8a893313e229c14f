// `git-jpblob pre-receive`: the check of the pre-push hook on the server,
// run from a bare repository's `pre-receive` hook (README, "Servers"),
// where no client can skip it. git runs the hook before it updates any ref,
// with the pushed objects in a quarantine folder that GitRepo reads through
// GIT_OBJECT_DIRECTORY and GIT_ALTERNATE_OBJECT_DIRECTORIES.
//
// The commits checked are those the push adds: reachable from a pushed
// ref's new value and from no ref the server has (core/maintenance/
// push_check, which also says why a commit that mends a broken one the
// server already holds is accepted).
#pragma once

#include <filesystem>
#include <string>

#include "core/maintenance/push_check.hpp"

namespace jpblob {

// `updates` is what git writes on the hook's standard input: lines of
// "<old id> <new id> <ref name>". Throws Error when git cannot be asked.
PushCheckReport run_pre_receive_hook(const std::filesystem::path& cwd, const std::string& updates);

}  // namespace jpblob
