#include "core/base/problem.hpp"

namespace jpblob {

std::string problem_kind_name(ProblemKind kind, std::size_t count) {
  const bool one = count == 1;
  switch (kind) {
    case ProblemKind::MissingBlob:
      return one ? "missing blob" : "missing blobs";
    case ProblemKind::CorruptBlob:
      return one ? "corrupt blob" : "corrupt blobs";
    case ProblemKind::NotAFile:
      return one ? "blob that is not a file" : "blobs that are not files";
    case ProblemKind::SymbolicLink:
      return one ? "symbolic link" : "symbolic links";
    case ProblemKind::MissingObject:
      return one ? "object missing from git" : "objects missing from git";
    case ProblemKind::Unreadable:
      return one ? "unreadable document" : "unreadable documents";
    case ProblemKind::Unfiltered:
      return one ? "document committed without the filter" : "documents committed without the filter";
    case ProblemKind::Other:
      break;
  }
  return one ? "other problem" : "other problems";
}

}  // namespace jpblob
