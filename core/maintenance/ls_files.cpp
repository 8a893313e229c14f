#include "core/maintenance/ls_files.hpp"

#include <algorithm>
#include <set>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/store/blob_store.hpp"

namespace jpblob {

std::vector<ListedDocument> list_documents_with_blobs(const GitRepo& repo, const GitCli& git,
                                                      const std::optional<std::string>& commit,
                                                      std::uint64_t min_size) {
  struct Version {
    std::string path, id;
    DocumentKind kind;
  };
  std::vector<Version> versions;
  std::unordered_set<std::string> files;  // every path the tree or index holds as a regular file
  if (commit) {
    const auto resolved = git.resolve_commit(*commit);
    if (!resolved) throw Error("'" + *commit + "' names no commit");
    for (const TreeEntry& e : git.tree_entries(*resolved, document_roots())) {
      if (!e.mode.starts_with("100")) continue;
      if (const auto kind = document_kind_at(e.path)) versions.push_back({e.path, e.id, *kind});
      files.insert(e.path);
    }
  } else {
    for (const IndexEntry& e : git.index_entries(document_pathspecs()))
      if (e.stage == 0 && e.mode.starts_with("100")) versions.push_back({e.path, e.id, document_kind(e.path)});
    for (const IndexEntry& e : git.index_entries({literal_pathspec(kWorkTreeStore)}))
      if (e.stage == 0 && e.mode.starts_with("100")) files.insert(e.path);
  }
  std::sort(versions.begin(), versions.end(), [](const Version& a, const Version& b) { return a.path < b.path; });
  std::vector<ListedDocument> out;
  for (const Version& v : versions) {
    if (!out.empty() && out.back().path == v.path) continue;  // one path once
    const auto text = repo.read_object(v.id);
    if (!text) throw Error(v.path + " (object " + v.id + ") is missing from git's objects");
    ListedDocument doc{v.path, v.kind, {}};
    std::set<Digest> seen;
    const DocumentNeeds needs = document_needs(v.kind, *text, min_size, InputForm::Committed);
    if (!needs.unreadable) doc.inline_payloads = needs.inline_payloads.size();
    for (const BlobUse& use : needs.references)
      if (seen.insert(use.digest).second)
        doc.blobs.push_back({use.digest, use.size, files.contains(tracked_blob_path(use.digest))});
    out.push_back(std::move(doc));
  }
  return out;
}

}  // namespace jpblob
