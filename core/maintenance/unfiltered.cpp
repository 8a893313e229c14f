#include "core/maintenance/unfiltered.hpp"

#include <algorithm>
#include <iterator>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

std::vector<Digest> payloads_clean_would_store(DocumentKind kind, std::string_view text, std::uint64_t min_size) {
  const DocumentNeeds needs = document_needs(kind, text, min_size, InputForm::Committed);
  std::vector<Digest> out;
  if (needs.unreadable) return out;
  for (const BlobUse& p : needs.inline_payloads) out.push_back(p.digest);
  return out;
}

std::string unfiltered_commit_mend(std::string_view root) {
  return "in the clone that made it: `git jpblob install`, `git jpblob checkout`, `git add --renormalize " +
         std::string(root) +
         "` and `git commit --amend --no-edit`, then push again (a new `git commit` in place of the amend mends the "
         "branch too, and leaves that commit in its history as it is)";
}

std::string document_root_of(std::string_view path) {
  for (const std::string& root : document_roots())
    if (path.starts_with(root + "/")) return root;
  return std::string(kStorageFolder);
}

bool UnfilteredCheck::names_jpblob(const std::vector<TreeEntry>& attribute_files) {
  for (const TreeEntry& e : attribute_files) {
    auto known = names_jpblob_.find(e.id);
    if (known == names_jpblob_.end()) {
      // An object this clone lacks (a partial clone) is git's to fetch.
      const auto text = repo_.read_object(e.id);
      known = names_jpblob_.emplace(e.id, !text || text->find("jpblob") != std::string::npos).first;
    }
    if (known->second) return true;
  }
  return false;
}

std::uint64_t UnfilteredCheck::min_size_of(const std::string& shared_config) {
  if (shared_config.empty()) return default_min_size_;
  auto known = min_sizes_.find(shared_config);
  if (known != min_sizes_.end()) return known->second;
  // Read as the filter reads the work tree's (workspace/shared_config): a
  // bad file or value leaves the personal setting.
  Settings settings;
  settings.min_size = default_min_size_;
  if (const auto text = repo_.read_object(shared_config); text && text->size() <= (1u << 20))
    apply_shared_config(settings, shared_config_of(*text));
  return min_sizes_.emplace(shared_config, settings.min_size).first->second;
}

const std::vector<Digest>& UnfilteredCheck::inline_payloads(const std::string& id, DocumentKind kind,
                                                            std::uint64_t min_size) {
  auto key = std::pair(id, min_size);
  auto known = payloads_.find(key);
  if (known != payloads_.end()) return known->second;
  std::vector<Digest> payloads;
  if (const auto text = repo_.read_object(id)) payloads = payloads_clean_would_store(kind, *text, min_size);
  return payloads_.emplace(std::move(key), std::move(payloads)).first->second;
}

std::vector<UnfilteredCandidate> UnfilteredCheck::under_jpblob(std::vector<UnfilteredCandidate> candidates,
                                                               const std::vector<TreeEntry>& attribute_files) {
  std::string key;
  for (const TreeEntry& e : attribute_files) key += e.path + '\0' + e.id + '\0';
  auto& routed = routed_[key];
  std::vector<std::string> ask;
  for (const UnfilteredCandidate& c : candidates)
    if (!routed.contains(c.path)) ask.push_back(c.path);
  for (const auto& [path, filter] : git_.filters_in_tree(attribute_files, ask)) routed[path] = filter == "jpblob";
  std::erase_if(candidates, [&](const UnfilteredCandidate& c) { return !routed[c.path]; });
  return candidates;
}

std::vector<Digest> UnfilteredCheck::unfiltered_payloads(const UnfilteredCandidate& c,
                                                         const std::vector<TreeEntry>& attribute_files,
                                                         const std::string& shared_config) {
  if (!names_jpblob(attribute_files)) return {};
  const std::vector<Digest>& payloads = inline_payloads(c.id, c.kind, min_size_of(shared_config));
  if (payloads.empty() || under_jpblob({c}, attribute_files).empty()) return {};
  return payloads;
}

const std::vector<Digest>* UnfilteredCheck::brought_in(const std::string& line) const {
  const auto found = brought_.find(line);
  return found == brought_.end() ? nullptr : &found->second;
}

void UnfilteredCheck::check(const std::string& commit, const std::vector<std::string>& parents,
                            const std::vector<UnfilteredCandidate>& candidates,
                            const std::vector<TreeEntry>& attribute_files, const std::string& shared_config,
                            std::vector<Problem>& problems) {
  if (candidates.empty() || !names_jpblob(attribute_files)) return;
  // What a parent holds as it is was that parent's to answer for, or is
  // from before adoption. Asked by one tree comparison a parent, not a
  // look-up a document: an adoption without --renormalize carries every
  // conversation inline through every later commit.
  std::vector<std::optional<std::unordered_set<std::string>>> changed_from;
  for (const std::string& parent : parents) changed_from.push_back(repo_.changed_blobs(parent, commit, document_roots()));
  std::vector<UnfilteredCandidate> changed;
  for (const UnfilteredCandidate& c : candidates) {
    bool carried = false;
    for (std::size_t k = 0; k < parents.size() && !carried; ++k)
      carried = changed_from[k] ? !changed_from[k]->contains(c.path) : repo_.blob_id_at(parents[k], c.path) == c.id;
    if (!carried) changed.push_back(c);
  }
  // The payloads each brings in, before git is asked the attributes: with
  // a shared minSize most candidates hold only payloads below it.
  const std::uint64_t min_size = min_size_of(shared_config);
  std::unordered_map<std::string, std::vector<Digest>> brought_by;  // path -> payloads
  std::vector<UnfilteredCandidate> bringing;
  for (const UnfilteredCandidate& c : changed) {
    const std::vector<Digest>& payloads = inline_payloads(c.id, c.kind, min_size);
    if (payloads.empty()) continue;
    std::unordered_set<Digest, DigestHash> before;
    for (const std::string& parent : parents)
      if (const auto id = repo_.blob_id_at(parent, c.path))
        for (const Digest& d : inline_payloads(*id, c.kind, 0)) before.insert(d);
    std::vector<Digest> brought;
    std::copy_if(payloads.begin(), payloads.end(), std::back_inserter(brought),
                 [&](const Digest& d) { return !before.contains(d); });
    if (brought.empty()) continue;
    brought_by[c.path] = std::move(brought);
    bringing.push_back(c);
  }
  if (bringing.empty()) return;
  for (const UnfilteredCandidate& c : under_jpblob(std::move(bringing), attribute_files)) {
    std::vector<Digest>& brought = brought_by[c.path];
    problems.push_back({ProblemKind::Unfiltered,
                        "commit " + commit.substr(0, 12) + ": " + c.path +
                            " was committed without the jpblob filter: it holds " + std::to_string(brought.size()) +
                            (brought.size() == 1 ? " payload" : " payloads") +
                            " inline that the filter stores as blobs (that commit's .gitattributes route it to "
                            "jpblob)",
                        unfiltered_commit_mend(document_root_of(c.path)), c.path});
    brought_[problems.back().line] = std::move(brought);
  }
}

}  // namespace jpblob
