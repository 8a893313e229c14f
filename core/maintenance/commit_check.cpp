#include "core/maintenance/commit_check.hpp"

#include <unordered_map>

#include "core/store/blob_store.hpp"
#include "core/base/error.hpp"

namespace jpblob {

const Problem& CommitChecker::blob_problem(const std::string& id, const BlobUse& use) {
  auto cached = blob_problems_.find(id);
  if (cached != blob_problems_.end()) return cached->second;
  Problem problem;
  try {
    auto raw = repo_.read_object(id);
    // .jp/blobs kept in git-lfs: the commit holds a pointer; check what it
    // points to.
    if (raw && is_lfs_pointer(*raw)) raw = git_.lfs_smudge(*raw, tracked_blob_path(use.digest));
    if (!raw) problem = {ProblemKind::MissingObject, "its object " + id + " is missing from git's objects (or git-lfs's)"};
    else check_blob(*raw, use.digest, use.size, max_blob_size_, tracked_blob_path(use.digest));
  } catch (const Error& e) {
    problem = {ProblemKind::CorruptBlob, e.what()};
  }
  return blob_problems_.emplace(id, std::move(problem)).first->second;
}

void CommitChecker::check(const std::string& commit, std::size_t& references,
                          std::vector<Problem>& problems) {
  struct Entry {
    std::string mode, id;
  };
  std::unordered_map<std::string, Entry> files;  // path -> entry
  for (TreeEntry& e : git_.tree_entries(commit, document_roots()))
    files.emplace(std::move(e.path), Entry{std::move(e.mode), std::move(e.id)});
  const std::string short_commit = commit.substr(0, 12);
  for (const auto& [path, entry] : files) {
    if (entry.mode == "120000") {
      // Every clone refuses a link below .jp (docs/FORMAT.md, "The
      // repository is untrusted"); it must not reach a server either.
      problems.push_back({ProblemKind::SymbolicLink, "commit " + short_commit + ": " + path +
                                                         " is a symbolic link, which git-jpblob refuses in every clone"});
      continue;
    }
    const auto kind = document_kind_at(path);
    if (!kind || !entry.mode.starts_with("100")) continue;
    auto cached = references_of_.find(entry.id);
    if (cached == references_of_.end()) {
      std::vector<BlobUse> refs;
      if (auto text = repo_.read_object(entry.id)) {
        refs = document_needs(*kind, *text, 0, InputForm::Committed).references;
      } else if (!repo_.promisor_remote()) {
        // Not a partial clone, which fetches what it lacks: an object git
        // should hold and libgit2 cannot see (a push's quarantine, before
        // GitRepo read it) must not pass as a document without references.
        problems.push_back({ProblemKind::MissingObject, "commit " + short_commit + ": " + path + ": its object " +
                                                            entry.id + " is missing from git's objects"});
        continue;
      }
      cached = references_of_.emplace(entry.id, std::move(refs)).first;
    }
    for (const BlobUse& ref : cached->second) {
      ++references;
      const std::string where = "commit " + short_commit + ": " + path + " references blob " + ref.digest.hex();
      const auto blob = files.find(tracked_blob_path(ref.digest));
      if (blob == files.end()) {
        problems.push_back({ProblemKind::MissingBlob, where + ", which that commit does not contain"});
      } else if (blob->second.mode != "100644" && blob->second.mode != "100755") {
        problems.push_back({ProblemKind::NotAFile, where + ", which that commit holds as a symbolic link or folder, not a file"});
      } else if (const Problem& why = blob_problem(blob->second.id, ref); !why.line.empty()) {
        problems.push_back({why.kind, where + ", which that commit holds corrupt: " + why.line});
      }
    }
  }
}

}  // namespace jpblob
