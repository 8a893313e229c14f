// A problem a check found (the pre-commit, pre-push and pre-receive hooks,
// verify): its line, and its kind, by which a long list is counted. A
// push of 200,000 references to missing blobs printed one line each (40 MB
// of `remote:` output); the command line now shows the first few and
// counts the rest by kind (cli/problem_list).
#pragma once

#include <cstddef>
#include <string>
#include <utility>

namespace jpblob {

enum class ProblemKind {
  MissingBlob,     // a referenced blob is nowhere it must be
  CorruptBlob,     // a blob whose bytes or size are not what its name or reference say
  NotAFile,        // a blob's path holds a link, a folder or a tree
  SymbolicLink,    // a link where git-jpblob never follows one
  MissingObject,   // an object git should hold and does not (a document's, or a staged blob's)
  Unreadable,      // a document that cannot be read as its kind
  Unfiltered,      // a document committed without the filter: payloads inline where attributes route it to jpblob
  Other,
};

struct Problem {
  Problem() = default;
  Problem(ProblemKind k, std::string l, std::string m = {}, std::string p = {})
      : kind(k), line(std::move(l)), mend(std::move(m)), path(std::move(p)) {}

  ProblemKind kind = ProblemKind::Other;
  std::string line;  // completes "git-jpblob: …", naming what and where
  // How to mend it, where that is the same for many problems (the
  // refusal says each distinct one once); empty when `line` says it.
  std::string mend;
  // The file it is about, where a later commit can mend it (an Unfiltered
  // problem's document); empty otherwise.
  std::string path;
};

// "missing blob" or "missing blobs", as `count` asks.
std::string problem_kind_name(ProblemKind kind, std::size_t count);

}  // namespace jpblob
