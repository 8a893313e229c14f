// `git-jpblob pre-push <remote> [<url>]`: the second line behind the
// pre-commit hook (docs/ARCHITECTURE.md, "Second line"). The pre-commit
// hook can be bypassed (--no-verify, a hook manager that replaced it,
// another tool); this refuses to push a commit whose tree lacks a blob one
// of its documents references, or holds one whose bytes do not match its
// name, naming commit, document and digest.
//
// The commits checked are those the push would send: for each ref, the
// pushed commit and its ancestors that the remote does not have (its old
// value, or any of its remote-tracking refs when that is unknown here).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace jpblob {

struct PrePushReport {
  std::size_t commits = 0;     // commits checked
  std::size_t references = 0;  // references checked
  std::vector<std::string> problems;  // one line each; non-empty refuses the push
};

// `updates` is what git writes on the hook's standard input: lines of
// "<local ref> <local id> <remote ref> <remote id>". Throws Error when git
// cannot be asked.
PrePushReport run_pre_push_hook(const std::filesystem::path& cwd, const std::string& remote,
                                const std::string& updates);

}  // namespace jpblob
