// The one error type that crosses module boundaries.
//
// Every failure that a user can see is an Error whose message completes the
// sentence "git-jpblob: <message>" and says what failed and why, for example
// "blob 3fa2… referenced by .jp/conversations/177…/events.json is missing".
// The CLI prints it on one line and maps it to an exit status; nothing in core/
// prints.
#pragma once

#include <stdexcept>
#include <string>

namespace jpblob {

// git's exit statuses (docs/git-jpblob.1, EXIT STATUS).
enum class ErrorKind {
  Failure,  // 128: the command could not do what it was asked (git's die())
  Problem,  // 1: it ran, and found a problem (verify), or refused (a hook)
  Usage,    // 129: the command line was wrong
};

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, ErrorKind kind = ErrorKind::Failure)
      : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

// Builds an Error from an errno value: "<what>: <strerror(err)>".
Error errno_error(const std::string& what, int err);

}  // namespace jpblob
