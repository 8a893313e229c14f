// `git-jpblob pre-push <remote> [<url>]`: the second line behind the
// pre-commit hook (docs/ARCHITECTURE.md, "Second line"). The pre-commit
// hook can be bypassed (--no-verify, a hook manager that replaced it,
// another tool); this refuses to push a commit whose tree lacks a blob one
// of its documents references, or holds one whose bytes do not match its
// name, naming commit, document and digest.
//
// The commits checked are those the push would send (core/maintenance/
// push_check): each pushed commit and its ancestors reachable from nothing
// the remote has. What the remote has is the remote's own answer, never a
// remote-tracking ref: a force push on the server drops commits that
// origin/<branch> still names until the next fetch, and a commit checked
// away by a stale ref went through unchecked (issue 46). The answer comes
// from git's input first (the remote ids are what the server advertised to
// this push), then, when that does not say enough, from one `git ls-remote`
// of the URL git pushes to: when a pushed ref is new to the remote (or its
// remote id is not here), since nothing else bounds the check then; and
// when the check finds a problem, since the commit may be one the server
// holds on another ref (a broken commit taken before its hook was
// installed blocks no push). A push of existing branches that passes asks
// nothing more of the server. When it cannot be asked, more commits are
// checked, never fewer.
#pragma once

#include <filesystem>
#include <string>

#include "core/maintenance/push_check.hpp"

namespace jpblob {

// `updates` is what git writes on the hook's standard input: lines of
// "<local ref> <local id> <remote ref> <remote id>". `where`: the URL git
// pushes to (its second argument), else the remote's name. Throws Error
// when git cannot be asked.
PushCheckReport run_pre_push_hook(const std::filesystem::path& cwd, const std::string& where,
                                  const std::string& updates);

}  // namespace jpblob
