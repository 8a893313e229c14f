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

enum class ErrorKind {
  Failure,  // exit status 1: the operation failed
  Usage,    // exit status 2: the command line was wrong
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
