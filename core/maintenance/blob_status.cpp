#include "core/maintenance/blob_status.hpp"

#include <algorithm>
#include <unordered_set>

#include "core/git/subprocess.hpp"
#include "core/maintenance/ls_files.hpp"
#include "core/maintenance/unfiltered.hpp"
#include "core/store/blob_store.hpp"
#include "core/lean/lean_tree.hpp"

namespace jpblob {

const char* place_name(BlobPlace place) {
  switch (place) {
    case BlobPlace::Committed: return "committed";
    case BlobPlace::Staged: return "staged";
    case BlobPlace::NotStaged: return "not_staged";
    case BlobPlace::Missing: return "missing";
  }
  return "missing";
}

StatusReport blob_status(const Workspace& ws, const GitRepo& repo, const GitCli& git) {
  StatusReport report;
  report.lean = is_lean(repo);
  // HEAD's blob paths, once: a new repository has none.
  std::unordered_set<std::string> in_head;
  if (const auto head = git.resolve_commit("HEAD"))
    for (const TreeEntry& e : git.tree_entries(*head, {std::string(kWorkTreeStore)})) in_head.insert(e.path);
  std::vector<std::string> holding_payloads;
  for (const ListedDocument& d : list_documents_with_blobs(repo, git, std::nullopt, ws.settings().min_size)) {
    if (d.inline_payloads > 0) holding_payloads.push_back(d.path);
    DocumentStatus s{d.path, BlobPlace::Committed, d.blobs.size(), {}};
    for (const ListedBlob& b : d.blobs) {
      BlobPlace place = BlobPlace::Committed;
      if (!in_head.contains(tracked_blob_path(b.digest))) {
        if (b.present)
          place = BlobPlace::Staged;
        else if (ws.store().contains(b.digest) ||
                 (ws.kept() && (ws.kept()->store().contains(b.digest) || ws.kept()->pending().contains(b.digest))))
          place = BlobPlace::NotStaged;
        else
          place = BlobPlace::Missing;
      }
      if (place == BlobPlace::Missing) s.missing.push_back(b.digest);
      s.place = std::max(s.place, place);
    }
    ++report.counts[static_cast<int>(s.place)];
    report.documents.push_back(std::move(s));
  }
  // What `git add --renormalize` would clean: the work tree's attributes,
  // as git reads them for an add.
  const auto filters = git.filters_of(holding_payloads);
  for (DocumentStatus& s : report.documents) {
    const auto filter = filters.find(s.path);
    s.unfiltered = filter != filters.end() && filter->second == "jpblob";
    if (s.unfiltered) report.unfiltered.push_back(s.path);
  }
  return report;
}

std::string unfiltered_index_mend(const std::vector<std::string>& paths) {
  std::vector<std::string> named = paths;
  if (named.size() > 10) {
    // A whole folder's worth (an adoption without --renormalize): its roots.
    named.clear();
    for (const std::string& p : paths) {
      std::string root = document_root_of(p);
      if (std::find(named.begin(), named.end(), root) == named.end()) named.push_back(std::move(root));
    }
  }
  std::string add = "git add --renormalize --";
  for (const std::string& p : named) add += " " + shell_quote(p);
  return add + " && git commit";
}

}  // namespace jpblob
