#include "document.hpp"

#include <algorithm>

#include "conversations.hpp"
#include "session_jsonl.hpp"

namespace jpblob {

namespace fs = std::filesystem;

DocumentKind document_kind(std::string_view path) {
  return path.ends_with(".jsonl") ? DocumentKind::Session : DocumentKind::Conversation;
}

const std::vector<std::string>& document_pathspecs() {
  static const std::vector<std::string> specs = {
      ":(glob).jp/conversations/**/events.json",
      ":(glob).jp/sessions/**/*.jsonl",
      ":(attr:filter=jpblob)",
  };
  return specs;
}

std::vector<fs::path> list_documents(const fs::path& storage) {
  std::vector<fs::path> out = list_conversations(storage);
  find_files(storage / "sessions", [](const fs::path& p) { return p.extension() == ".jsonl"; }, out);
  std::sort(out.begin(), out.end());
  return out;
}

TransformReport clean_document(DocumentKind kind, std::string_view input, const BlobStore& store,
                               const CleanOptions& options, const OutputSink& out) {
  if (kind == DocumentKind::Session) return externalize_session(input, store, options, out);
  return clean(input, store, options, out);
}

TransformReport smudge_document(DocumentKind kind, std::string_view input, const BlobSource& source,
                                const SmudgeOptions& options, const OutputSink& out) {
  if (kind == DocumentKind::Session) return load_session(input, source, options, out);
  return smudge(input, source, options, out);
}

bool document_needs(DocumentKind kind, std::string_view text, std::uint64_t min_size, DocumentNeeds& out,
                    std::string& why) {
  if (kind == DocumentKind::Session) {
    const SessionImages images = session_images(text);
    for (const auto& d : images.referenced) out.references.push_back({d, std::nullopt});
    for (const auto& i : images.inline_images) out.inline_payloads.push_back({i.digest, i.size});
    return true;
  }
  std::vector<Reference> references, payloads;
  if (!referenced_digests(text, min_size, references, payloads, why)) return false;
  for (const auto& r : references) out.references.push_back({r.digest, r.size});
  for (const auto& r : payloads) out.inline_payloads.push_back({r.digest, r.size});
  return true;
}

}  // namespace jpblob
