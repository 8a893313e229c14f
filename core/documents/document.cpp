#include "core/documents/document.hpp"

#include <fnmatch.h>
#include <sys/stat.h>

#include <algorithm>

#include "core/store/restore_budget.hpp"
#include "core/documents/session_jsonl.hpp"

namespace jpblob {

namespace fs = std::filesystem;

const std::vector<DocumentType>& document_types() {
  // -text: git-jpblob restores the exact bytes JP wrote, so core.autocrlf
  // must not convert them. diff=jpblob lets `git log -p` show a
  // conversation's payloads through textconv; merge=jpblob merges appended
  // events by themselves (core/merge/merge).
  static const std::vector<DocumentType> types = {
      {DocumentKind::Conversation, "conversation", kStorageFolder, "conversations", "**/events.json",
       "filter=jpblob diff=jpblob merge=jpblob -text", {"metadata.json", "base_config.json"}},
      {DocumentKind::Session, "session", kStorageFolder, "sessions", "**/*.jsonl", "filter=jpblob merge=jpblob -text",
       {}},
      // Claude Code transcripts, committed where Claude Code keeps them
      // (~/.claude/projects/<project>/<session>.jsonl) below the project's
      // own .claude folder: docs/FORMAT.md, "Agent sessions".
      {DocumentKind::Session, "session", ".claude", "projects", "**/*.jsonl", "filter=jpblob merge=jpblob -text",
       {}},
  };
  return types;
}

namespace {

// The file part of a type's glob ("events.json", "*.jsonl"): every glob in
// the table is "**/<one component>".
std::string_view file_pattern(const DocumentType& type) {
  return type.file_glob.substr(type.file_glob.rfind('/') + 1);
}

bool name_matches(const DocumentType& type, const std::string& name) {
  return ::fnmatch(std::string(file_pattern(type)).c_str(), name.c_str(), FNM_PERIOD) == 0;
}

std::string folder_of(const DocumentType& type) {
  return std::string(type.root) + "/" + std::string(type.folder) + "/";
}

// Whether `folder` (".claude/projects") and each folder on the way are
// real folders, or absent. Another tool's folder may be a user's link
// (`.claude` to a shared configuration): git tracks nothing beyond a link,
// so nothing of ours is there, and it is passed over, never followed, where
// a link in `.jp` is refused.
bool own_folder(const SafeDir& base, const fs::path& folder) {
  fs::path on_the_way;
  for (const auto& part : folder) {
    on_the_way /= part;
    const auto st = base.lstat(on_the_way);
    if (!st) return true;  // absent: nothing to list
    if (!S_ISDIR(st->st_mode)) return false;
  }
  return true;
}

}  // namespace

DocumentKind document_kind(std::string_view path) {
  return path.ends_with(".jsonl") ? DocumentKind::Session : DocumentKind::Conversation;
}

std::optional<DocumentKind> document_kind_at(std::string_view repo_path) {
  for (const DocumentType& type : document_types()) {
    const std::string folder = folder_of(type);
    if (!repo_path.starts_with(folder)) continue;
    const std::string_view rest = repo_path.substr(folder.size());
    const std::string name(rest.substr(rest.rfind('/') == std::string_view::npos ? 0 : rest.rfind('/') + 1));
    if (!name.empty() && name_matches(type, name)) return type.kind;
  }
  return std::nullopt;
}

const std::vector<std::string>& document_roots() {
  static const std::vector<std::string> roots = [] {
    std::vector<std::string> out;
    for (const DocumentType& type : document_types()) {
      std::string root = type.root == kStorageFolder ? std::string(kStorageFolder) : folder_of(type);
      if (root.ends_with('/')) root.pop_back();
      if (std::find(out.begin(), out.end(), root) == out.end()) out.push_back(std::move(root));
    }
    return out;
  }();
  return roots;
}

const std::vector<std::string>& document_pathspecs() {
  static const std::vector<std::string> specs = [] {
    std::vector<std::string> out;
    for (const DocumentType& type : document_types())
      out.push_back(":(glob)" + folder_of(type) + std::string(type.file_glob));
    out.push_back(":(attr:filter=jpblob)");
    return out;
  }();
  return specs;
}

const std::vector<std::string>& document_attribute_lines() {
  static const std::vector<std::string> lines = [] {
    std::vector<std::string> out;
    for (const DocumentType& type : document_types())
      out.push_back(folder_of(type) + std::string(type.file_glob) + " " + std::string(type.attributes));
    // Blobs get diff=jpblob rather than -diff so `git log -p` can show
    // their content through textconv; without the driver git still treats
    // them as binary, since every blob's gzip header holds NUL bytes.
    // linguist-generated keeps them out of GitHub's diffs and language
    // statistics; merge=jpblob keeps two gzip spellings of one blob from
    // conflicting.
    out.push_back(std::string(kWorkTreeStore) + "/** -text diff=jpblob merge=jpblob linguist-generated");
    return out;
  }();
  return lines;
}

std::vector<fs::path> list_documents(const SafeDir& base, const fs::path& storage,
                                     std::vector<fs::path>* temporaries) {
  auto temporary = [&](const std::string& name) {
    return temporaries && name.starts_with(AtomicFile::kTempPrefix);
  };
  std::vector<fs::path> found;
  for (const DocumentType& type : document_types()) {
    // Another tool's folder is only where a work tree's top is the base.
    if (type.root != kStorageFolder && storage != fs::path(kStorageFolder)) continue;
    const fs::path folder = type.root == kStorageFolder ? storage / type.folder : fs::path(type.root) / type.folder;
    if (type.root != kStorageFolder && !own_folder(base, folder)) continue;
    base.find_files(
        folder,
        [&](const std::string& name) { return name_matches(type, name) || temporary(name); }, found);
  }
  // One walk for both: gc's sweep of temporaries used to walk the
  // document folders a second time, one folder per conversation.
  std::vector<fs::path> out;
  for (fs::path& f : found) {
    if (temporary(f.filename().string()))
      temporaries->push_back(std::move(f));
    else
      out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end());
  if (temporaries) std::sort(temporaries->begin(), temporaries->end());
  return out;
}

TransformReport clean_document(DocumentKind kind, std::string_view input, const BlobSink& store,
                               const CleanOptions& options, const OutputSink& out) {
  // What smudge could not give back is refused here, before anything is
  // stored: the round trip holds for every file clean accepts.
  if (input.size() > options.max_file_size)
    throw Error(too_large_to_restore(options.path, input.size(), options.max_file_size));
  if (kind == DocumentKind::Session) return externalize_session(input, store, options, out);
  return clean(input, store, options, out);
}

TransformReport smudge_document(DocumentKind kind, std::string_view input, const BlobSource& source,
                                const SmudgeOptions& options, const OutputSink& out) {
  try {
    if (kind == DocumentKind::Session) return load_session(input, source, options, out);
    return smudge(input, source, options, out);
  } catch (const TooLargeToRestore& e) {
    // A display never aborts: show the file as committed. Neither
    // transform has written anything before it fails.
    if (!options.keep_missing) throw;
    out(input);
    TransformReport report;
    report.passthrough = true;
    report.warnings.push_back(std::string(e.what()) + "; showing it as committed");
    return report;
  }
}

DocumentNeeds document_needs(DocumentKind kind, std::string_view text, std::uint64_t min_size, InputForm form) {
  DocumentNeeds out;
  if (kind == DocumentKind::Session) {
    const SessionImages images = session_images(text, min_size);
    for (const auto& d : images.referenced) out.references.push_back({d, std::nullopt});
    for (const auto& i : images.inline_images) out.inline_payloads.push_back({i.digest, i.size});
    return out;
  }
  std::vector<Reference> references, payloads;
  std::vector<Digest> named;
  std::string why;
  if (!referenced_digests(text, min_size, references, named, payloads, why, &out.in_literals, form, &out.respelled)) {
    out.unreadable = why;
    return out;
  }
  for (const auto& r : references) out.references.push_back({r.digest, r.size});
  for (const auto& d : named) out.references.push_back({d, std::nullopt});
  for (const auto& r : payloads) out.inline_payloads.push_back({r.digest, r.size});
  return out;
}

}  // namespace jpblob
