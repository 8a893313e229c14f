// The pre-commit hook's first pass: what each staged document needs, read
// from git's objects on every core.
#pragma once

#include <string>
#include <vector>

#include "core/documents/document.hpp"
#include <string>
#include <unordered_map>
#include <vector>

#include "core/git/git_cli.hpp"
#include "core/lean/needs_log.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

struct DocumentRead {
  bool missing = false;  // not in git's objects
  bool recorded = false;  // answered by the filter's record (`recorded` below), not read
  std::size_t replaced = 0;  // inline payloads a second clean took out (no filter ran)
  std::string cleaned;  // the staged document cleaned again, kept only when replaced > 0
  std::vector<BlobUse> references;  // every blob the (cleaned) document references
};

// Each document in `documents` (staged changes) read from git's objects,
// cleaned again (inline payloads a missing filter left are stored, as
// clean would) and parsed for its references, in the same order. One
// thread a core, each with a libgit2 repository of its own: libgit2 reads
// one object at a time from a shared one (GitRepo::lock), and reading was
// half of a 1,000-conversation commit's 1.7 s here. Throws what clean
// throws for a document it cannot read as its kind.
// `recorded`: what the filter recorded of its outputs (core/lean/needs_log),
// by git id; a document found there with the same question (kind, minimum
// size) is not read.
std::vector<DocumentRead> read_staged_documents(const Workspace& ws, const std::vector<RawChange>& documents,
                                                const std::unordered_map<std::string, RecordedNeeds>& recorded = {});

}  // namespace jpblob
