// `git-jpblob pre-push <remote> [<url>]`: the second line behind the
// pre-commit hook (docs/ARCHITECTURE.md, "Second line"). The pre-commit
// hook can be bypassed (--no-verify, a hook manager that replaced it,
// another tool); this refuses to push a commit whose tree lacks a blob one
// of its documents references, or holds one whose bytes do not match its
// name, naming commit, document and digest.
//
// The commits checked are those the push would send (core/maintenance/
// push_check): each pushed commit and its ancestors reachable from nothing
// the remote has. What the remote has: every remote id on git's input this
// repository holds, and the remote's tracking refs when `remote` names a
// configured remote; when it is a URL (`git push ../srv.git main`), the
// ids the URL advertises now (`git ls-remote`), since no tracking ref
// speaks for it.
#pragma once

#include <filesystem>
#include <string>

#include "core/maintenance/push_check.hpp"

namespace jpblob {

// `updates` is what git writes on the hook's standard input: lines of
// "<local ref> <local id> <remote ref> <remote id>". Throws Error when git
// cannot be asked.
PushCheckReport run_pre_push_hook(const std::filesystem::path& cwd, const std::string& remote,
                                  const std::string& updates);

}  // namespace jpblob
