#include "hooks/staged_documents.hpp"

#include <algorithm>
#include <thread>

#include "core/base/parallel.hpp"
#include "core/documents/transform.hpp"

namespace jpblob {

namespace {

DocumentRead read_document(const Workspace& ws, const RawChange& c, const GitRepo& repo,
                           const std::unordered_map<std::string, RecordedNeeds>& recorded) {
  DocumentRead out;
  const DocumentKind kind = document_kind(c.path);
  const CleanOptions options = ws.settings().clean_options(c.path, InputForm::Committed);
  // 0. The filter's answer for these very bytes, to the same question
  // (the scan below): nothing to read.
  if (const auto r = recorded.find(c.new_id); r != recorded.end() && kind == DocumentKind::Conversation &&
      r->second.kind == kind && r->second.min_size == options.min_size && r->second.size <= options.max_file_size) {
    out.references = r->second.references;
    out.recorded = true;
    return out;
  }
  std::optional<std::string> staged;
  {
    const auto lock = repo.lock();  // the workspace's is shared with clean's questions to git
    staged = repo.read_object(c.new_id);
  }
  if (!staged) {
    out.missing = true;
    return out;
  }
  // 1. Inline payloads left by a missing filter: clean the staged version.
  // What is staged is clean's output (or, with no filter, JP's form with
  // nothing reference-shaped taken for the user's): read as committed, so
  // a second clean changes nothing clean wrote.
  // What the filter staged is clean's output already: one scan tells that
  // a second clean would give it back unchanged (no inline payload, no
  // reference in another spelling), and what it references. The clean and
  // the second scan of its output are only for what no filter cleaned;
  // together they were a quarter of a commit of 10,000 new conversations.
  if (kind == DocumentKind::Conversation && staged->size() <= options.max_file_size) {
    DocumentNeeds needs = document_needs(kind, *staged, options.min_size, InputForm::Committed);
    if (!needs.unreadable && needs.inline_payloads.empty() && needs.respelled == 0) {
      out.references = std::move(needs.references);
      return out;
    }
  }
  std::string cleaned;
  const auto result = clean_document(kind, *staged, ws.new_blobs(), options,
                                     [&](std::string_view s) { cleaned.append(s); });
  staged.reset();
  // 2. What it references. Not readable as its kind: it holds no
  // references, and the filter passed it through.
  out.references = document_needs(kind, cleaned, 0, InputForm::Committed).references;
  out.replaced = result.replaced;
  if (out.replaced > 0) out.cleaned = std::move(cleaned);
  return out;
}

}  // namespace

std::vector<DocumentRead> read_staged_documents(const Workspace& ws, const std::vector<RawChange>& documents,
                                                const std::unordered_map<std::string, RecordedNeeds>& recorded) {
  std::vector<DocumentRead> reads(documents.size());
  const std::size_t threads = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 8);
  parallel_for(
      std::min(threads, documents.size()),
      [&](std::size_t t) {
        const auto own = GitRepo::open(ws.top());
        for (std::size_t i = t; i < documents.size(); i += threads)
          reads[i] = read_document(ws, documents[i], own ? *own : *ws.repo(), recorded);
      },
      static_cast<unsigned>(threads));
  return reads;
}

}  // namespace jpblob
