#include "hooks/store_changes.hpp"

#include "core/base/error.hpp"
#include "core/store/blob_store.hpp"

namespace jpblob {

namespace {

// True when the object `id` at a blob's tracked path holds what the path's
// name says (or is a git-lfs pointer: git-lfs holds and checks the bytes).
bool holds_its_name(const GitRepo& repo, std::uint64_t max_blob_size, const Digest& digest, const std::string& id) {
  const auto raw = repo.read_object(id);
  if (!raw) return false;
  if (is_lfs_pointer(*raw)) return true;
  try {
    check_blob(*raw, digest, std::nullopt, max_blob_size, id);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

void judge_store_change(const GitRepo& repo, std::uint64_t max_blob_size, const RawChange& c, StoreChanges& changes,
                        std::vector<Problem>& problems) {
  changes.paths.insert(c.path);
  const auto digest = digest_of_tracked_path(c.path);
  if (c.status == 'D') {
    if (digest) changes.deleted.insert(*digest);
    return;
  }
  if (c.new_mode == "120000") {
    // A link committed into the store would have every clone refuse it
    // (docs/FORMAT.md, "The repository is untrusted").
    problems.push_back({ProblemKind::SymbolicLink, "refusing to commit " + c.path + ": it is a symbolic link, and git-jpblob never follows "
                       "links inside a repository; unstage it: git rm --cached " + c.path});
    return;
  }
  if (!digest) return;  // not a blob file: not ours to judge
  // A blob never changes, except to mend a copy that never held what its
  // name says: what `git jpblob repair` stages in its place.
  if (c.status != 'A' && holds_its_name(repo, max_blob_size, *digest, c.old_id)) {
    problems.push_back({ProblemKind::Other, c.path + " is a tracked blob whose content is being changed; a blob "
                                            "never changes: git checkout HEAD -- " + c.path});
    return;
  }
  auto raw = repo.read_object(c.new_id);
  if (!raw) return;
  try {
    check_blob(*raw, *digest, std::nullopt, max_blob_size, c.path + " (index)");
    changes.staged_paths.push_back(c.path);
    changes.staged[c.path] = std::move(*raw);
  } catch (const Error& err) {
    problems.push_back({ProblemKind::CorruptBlob, std::string(err.what()) + "; unstage it: git rm --cached " + c.path});
  }
}

}  // namespace jpblob
