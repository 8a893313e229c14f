// The two kinds of file git-jpblob keeps small: JP conversations
// (events.json, SPEC §3–§5) and coding-agent sessions (JSON Lines, §8).
// Everything that reads or transforms such a file — the filter, the
// pre-commit hook, gc, verify, stats — goes through here, so they agree on
// what a file needs from the blob store.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "blob_store.hpp"
#include "digest.hpp"
#include "transform.hpp"

namespace jpblob {

enum class DocumentKind { Conversation, Session };

// The kind the filter gives a file from git's name for it: a name ending in
// ".jsonl" is a session, anything else a conversation.
DocumentKind document_kind(std::string_view path);

// Git pathspecs of every document in a repository: the conversations and
// sessions under .jp, and any file .gitattributes routes to the filter.
const std::vector<std::string>& document_pathspecs();

// Every document under a JP storage folder (`.jp`):
// conversations/**/events.json and sessions/**/*.jsonl, sorted. Symlinked
// folders are not followed. Throws Error when a folder cannot be read.
std::vector<std::filesystem::path> list_documents(const std::filesystem::path& storage);

TransformReport clean_document(DocumentKind kind, std::string_view input, const BlobStore& store,
                               const CleanOptions& options, const OutputSink& out);
TransformReport smudge_document(DocumentKind kind, std::string_view input, const BlobSource& source,
                                const SmudgeOptions& options, const OutputSink& out);

// A blob a document names.
struct BlobUse {
  Digest digest;
  std::optional<std::uint64_t> size;  // as declared; a session's blob: URL declares none
};

struct DocumentNeeds {
  std::vector<BlobUse> references;  // what it references now
  std::vector<BlobUse> inline_payloads;  // what clean would store from it
};

// What a document needs from the store; nothing is stored. Returns false,
// with `why`, when a conversation is not one (a session is read line by
// line and always succeeds). `min_size` as in CleanOptions.
bool document_needs(DocumentKind kind, std::string_view text, std::uint64_t min_size, DocumentNeeds& out,
                    std::string& why);

}  // namespace jpblob
