// The two kinds of file git-jpblob keeps small: JP conversations
// (events.json) and coding-agent sessions (JSON Lines): docs/FORMAT.md.
// Everything that reads or transforms such a file — the filter, the
// pre-commit hook, gc, verify, stats — goes through here, so they agree on
// what a file needs from the blob store.
//
// One table: the filter picks the transform by git's name for the file
// (`.jsonl` is a session). The hook, gc, verify, stats and migrate ask
// document_needs what a file references and what clean would store from
// it; its answer carries `unreadable` when a file is not its kind, so
// callers decide by a field, never by parsing a message. They find
// documents with the table's pathspecs and `:(attr:filter=jpblob)`, which
// catches sessions users route from anywhere; `verify --history` knows
// documents in old commits by their path alone (document_kind_at), since
// attributes are not evaluated per commit.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/store/blob_store.hpp"
#include "core/format/digest.hpp"
#include "core/base/safe_path.hpp"
#include "core/documents/transform.hpp"

namespace jpblob {

enum class DocumentKind { Conversation, Session };

// One kind of document and where it lives. This table is the only place
// that knows the kinds: a new kind is one more row (and its transform).
struct DocumentType {
  DocumentKind kind;
  std::string_view name;        // "conversation", for messages
  // Where the kind's folder is, relative to a work tree's top: kStorageFolder
  // (`.jp`, which a JP storage folder given with --store stands for), or a
  // folder of another tool (`.claude`), which only a work tree has.
  std::string_view root;
  std::string_view folder;      // below `root`
  std::string_view file_glob;   // below `folder`, in git's glob syntax
  std::string_view attributes;  // what install writes after the path in .gitattributes
  // The other files a document of this kind keeps beside it (`files`).
  std::vector<std::string_view> companions;
};
const std::vector<DocumentType>& document_types();

// The storage folder of a work tree, relative to its top.
inline constexpr std::string_view kStorageFolder = ".jp";

// The kind the filter gives a file from git's name for it: a name ending in
// ".jsonl" is a session, anything else a conversation.
DocumentKind document_kind(std::string_view path);

// The kind of document at a path relative to a work tree's top when it is
// one by the table (".jp/conversations/<any>/events.json", ".jp/sessions/
// <any>.jsonl", ".claude/projects/<any>.jsonl"), nullopt otherwise. Files routed to the filter from
// elsewhere by .gitattributes are not known from the path alone.
std::optional<DocumentKind> document_kind_at(std::string_view repo_path);

// The folders below which a tree holds documents by the table (".jp",
// ".claude/projects"): what is read of a commit's tree.
const std::vector<std::string>& document_roots();

// Git pathspecs of every document in a repository: the conversations and
// sessions under .jp, and any file .gitattributes routes to the filter.
const std::vector<std::string>& document_pathspecs();

// The lines install adds to .gitattributes: one per document type, and the
// store's.
const std::vector<std::string>& document_attribute_lines();

// Every document under a JP storage folder (`storage`, relative to
// `base`: `.jp` in a work tree), by the table, relative to `base`, sorted;
// when `storage` is `.jp`, the documents of the table's other roots
// (`.claude/projects`) too.
// No link is followed; one where a document would be read is refused.
// Throws Error when a folder cannot be read. With `temporaries`, the same
// walk also appends to it, sorted, the AtomicFile temporaries (named
// AtomicFile::kTempPrefix...) below the document folders, and refuses a
// link under such a name too.
std::vector<std::filesystem::path> list_documents(const SafeDir& base, const std::filesystem::path& storage,
                                                  std::vector<std::filesystem::path>* temporaries = nullptr);

TransformReport clean_document(DocumentKind kind, std::string_view input, const BlobSink& store,
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
  // Blobs the user's own data names: inside literal objects, and in the
  // agent's reference-shaped objects that clean never wrote (a plain
  // reference in tool arguments, say; docs/FORMAT.md, "Literal objects"):
  // gc keeps them, nothing requires them, verify notes the missing ones.
  std::vector<Digest> in_literals;
  // References at payload positions that clean would write again in its
  // own spelling (a conversation's committed form edited by hand): with
  // no inline payload either, clean would give the text back unchanged.
  std::size_t respelled = 0;
  // Set, with why, when the text is not a document of its kind (a
  // conversation that is not valid JSON, say): it then needs nothing, and
  // the filter passes it through. A session is read line by line and is
  // always readable.
  std::optional<std::string> unreadable;
};

// What a document needs from the store; nothing is stored. `min_size` as
// in CleanOptions. `form`: the form `text` is in, as clean would read it (a
// work-tree file in JP's form holds the user's reference-shaped objects
// where the committed form holds literals).
DocumentNeeds document_needs(DocumentKind kind, std::string_view text, std::uint64_t min_size, InputForm form);

}  // namespace jpblob
