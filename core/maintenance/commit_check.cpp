#include "core/maintenance/commit_check.hpp"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "core/store/blob_store.hpp"
#include "core/base/error.hpp"
#include "core/workspace/shared_config.hpp"

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

namespace {

// What ls-tree lists of a commit besides its document roots: the
// attributes files above them and the shared settings at the top.
const std::vector<std::string>& listed_paths() {
  static const std::vector<std::string> paths = [] {
    std::vector<std::string> out = document_roots();
    for (const std::string& root : document_roots())
      for (auto slash = root.find('/'); slash != std::string::npos; slash = root.find('/', slash + 1))
        out.push_back(root.substr(0, slash) + "/.gitattributes");
    out.push_back(".gitattributes");
    out.push_back(std::string(kSharedConfigFile));
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }();
  return paths;
}

bool below_a_root(std::string_view path) {
  for (const std::string& root : document_roots())
    if (path.starts_with(root + "/")) return true;
  return false;
}

// One commit's tree as the check reads it.
struct CommitFiles {
  struct Entry {
    std::string mode, id;
  };
  std::unordered_map<std::string, Entry> below_roots;  // path -> entry
  std::vector<TreeEntry> attributes;                   // its .gitattributes files
  std::string shared_config;                           // its .jpblobconfig's id, or empty
};

CommitFiles list_commit(const GitCli& git, const std::string& commit) {
  CommitFiles files;
  for (TreeEntry& e : git.tree_entries(commit, listed_paths())) {
    const bool regular = e.mode == "100644" || e.mode == "100755";
    if (regular && (e.path == ".gitattributes" || e.path.ends_with("/.gitattributes"))) files.attributes.push_back(e);
    if (below_a_root(e.path))
      files.below_roots.emplace(std::move(e.path), CommitFiles::Entry{std::move(e.mode), std::move(e.id)});
    else if (regular && e.path == kSharedConfigFile)
      files.shared_config = e.id;
  }
  return files;
}

}  // namespace

void CommitChecker::check(const std::string& commit, std::size_t& references, std::vector<Problem>& problems,
                          const std::vector<std::string>* parents) {
  const CommitFiles listed = list_commit(git_, commit);
  const auto& files = listed.below_roots;
  std::vector<UnfilteredCandidate> holding_payloads;
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
    auto cached = scanned_.find(entry.id);
    if (cached == scanned_.end()) {
      Scanned scanned;
      if (auto text = repo_.read_object(entry.id)) {
        DocumentNeeds needs = document_needs(*kind, *text, 0, InputForm::Committed);
        scanned.references = std::move(needs.references);
        scanned.holds_payloads = !needs.inline_payloads.empty();
      } else if (!repo_.promisor_remote()) {
        // Not a partial clone, which fetches what it lacks: an object git
        // should hold and libgit2 cannot see (a push's quarantine, before
        // GitRepo read it) must not pass as a document without references.
        problems.push_back({ProblemKind::MissingObject, "commit " + short_commit + ": " + path + ": its object " +
                                                            entry.id + " is missing from git's objects"});
        continue;
      }
      cached = scanned_.emplace(entry.id, std::move(scanned)).first;
    }
    if (cached->second.holds_payloads) holding_payloads.push_back({path, entry.id, *kind});
    for (const BlobUse& ref : cached->second.references) {
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
  if (parents) unfiltered_.check(commit, *parents, holding_payloads, listed.attributes, listed.shared_config, problems);
}

void CommitChecker::drop_mended(std::vector<Problem>& problems, const std::vector<std::string>& tips) {
  // Path -> the payloads some tip still holds unfiltered there.
  std::unordered_map<std::string, std::unordered_set<Digest, DigestHash>> still;
  for (const Problem& p : problems)
    if (p.kind == ProblemKind::Unfiltered) still.emplace(p.path, std::unordered_set<Digest, DigestHash>{});
  if (still.empty()) return;
  for (const std::string& tip : tips) {
    const CommitFiles listed = list_commit(git_, tip);
    for (auto& [path, held] : still) {
      const auto entry = listed.below_roots.find(path);
      const auto kind = document_kind_at(path);
      if (!kind || entry == listed.below_roots.end() || !entry->second.mode.starts_with("100")) continue;
      for (const Digest& d :
           unfiltered_.unfiltered_payloads({path, entry->second.id, *kind}, listed.attributes, listed.shared_config))
        held.insert(d);
    }
  }
  // A problem stays while a tip holds a payload its commit brought in: the
  // same path holding another commit's is that commit's problem.
  std::erase_if(problems, [&](const Problem& p) {
    if (p.kind != ProblemKind::Unfiltered) return false;
    const std::vector<Digest>* brought = unfiltered_.brought_in(p.line);
    const auto& held = still[p.path];
    return !brought || std::none_of(brought->begin(), brought->end(), [&](const Digest& d) { return held.contains(d); });
  });
}

}  // namespace jpblob
