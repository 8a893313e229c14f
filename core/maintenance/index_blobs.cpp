#include "core/maintenance/index_blobs.hpp"

#include <filesystem>
#include <unordered_map>

#include "core/base/error.hpp"
#include "core/base/parallel.hpp"
#include "core/git/git_cli.hpp"
#include "core/store/blob_store.hpp"

namespace jpblob {

namespace fs = std::filesystem;

std::vector<IndexBlob> index_only_blobs(const Workspace& ws, const std::unordered_set<Digest, DigestHash>& in_store,
                                        bool all_worktrees) {
  std::vector<IndexBlob> out;
  if (!ws.in_work_tree()) return out;
  std::vector<fs::path> trees = {ws.top()};
  if (all_worktrees) trees = GitCli(ws.top()).worktrees();
  std::unordered_set<Digest, DigestHash> seen;
  for (const fs::path& wt : trees) {
    std::error_code ec;
    if (!fs::exists(wt, ec)) continue;
    for (IndexEntry& e : GitCli(wt).index_entries({literal_pathspec(kWorkTreeStore)})) {
      const auto digest = digest_of_tracked_path(e.path);
      if (!digest || e.stage != 0 || in_store.count(*digest) || !seen.insert(*digest).second) continue;
      out.push_back({*digest, std::move(e.path), std::move(e.id)});
    }
  }
  return out;
}

std::vector<IndexBlobCheck> check_index_blobs(const Workspace& ws, const std::vector<IndexBlob>& blobs) {
  std::vector<IndexBlobCheck> out(blobs.size());
  if (!ws.repo()) return out;
  const GitRepo& repo = *ws.repo();
  const std::uint64_t limit = ws.settings().store.max_blob_size;
  parallel_for(blobs.size(), [&](std::size_t i) {
    std::optional<std::string> raw;
    {
      const auto lock = repo.lock();  // one thread at a time in libgit2
      raw = repo.read_object(blobs[i].id);
    }
    if (!raw) return;  // a partial clone's missing object: nothing to verify here
    // .jp/blobs kept in git-lfs: the index holds a pointer, and git-lfs the
    // blob file, which it gives (or fetches) as smudge gets it.
    if (is_lfs_pointer(*raw)) {
      raw = GitCli(ws.top()).lfs_smudge(*raw, blobs[i].path);
      if (!raw) return;  // git-lfs cannot give it: not here to verify, as a partial clone's
    }
    out[i].stored = raw->size();
    try {
      out[i].size = check_blob(*raw, blobs[i].digest, std::nullopt, limit, blobs[i].path + " (in the index)");
    } catch (const Error& e) {
      out[i].problem = e.what();
    }
  });
  return out;
}

}  // namespace jpblob
