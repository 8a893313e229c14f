// `git jpblob ls-files [<commit>]` (docs/ARCHITECTURE.md, "Back of the
// house"): each document a commit's tree, or the index, holds, with the
// blobs it references and whether that same tree (or index) holds each, as
// `git lfs ls-files` lists a commit's LFS files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/documents/document.hpp"
#include "core/format/digest.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"

namespace jpblob {

struct ListedBlob {
  Digest digest;
  std::optional<std::uint64_t> size;  // as the reference declares it
  bool present;                       // the same tree (or index) holds its file
};

struct ListedDocument {
  std::string path;  // relative to the work tree's top
  DocumentKind kind;
  std::vector<ListedBlob> blobs;  // each referenced blob once, in the order first referenced
  // Payloads it holds inline that clean would store (at the `min_size`
  // given): a document committed or staged without the filter
  // (core/maintenance/unfiltered).
  std::size_t inline_payloads = 0;
};

// The documents (by path, document_kind_at, plus in the index any file
// .gitattributes routes to the filter) that `commit` holds, or the index
// `git` reads when `commit` is nullopt, sorted by path. Only references
// count: a staged document that still holds inline payloads lists none for
// them (the pre-commit hook cleans it). `min_size`: jpblob.minSize, for
// inline_payloads. Throws Error when `commit` names no commit or an object
// cannot be read.
std::vector<ListedDocument> list_documents_with_blobs(const GitRepo& repo, const GitCli& git,
                                                      const std::optional<std::string>& commit,
                                                      std::uint64_t min_size = 0);

}  // namespace jpblob
