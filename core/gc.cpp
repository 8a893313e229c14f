#include "gc.hpp"

#include <ctime>

#include "git_cli.hpp"
#include "live_set.hpp"

namespace jpblob {

GcReport run_gc(const Workspace& ws, const GcOptions& options, const Progress& progress) {
  GcReport report;
  report.dry_run = options.dry_run;
  const std::time_t now = ::time(nullptr);
  const BlobStore& store = ws.store();
  // List first, then gather: a blob written after the listing is not a
  // candidate at all, and one written before it is either in the live set
  // or young enough for the grace period.
  const std::vector<StoreEntry> entries = store.entries();
  const LiveSet live = build_live_set(ws, progress);
  report.conversations = live.documents;
  std::vector<std::string> unstage;
  for (const StoreEntry& e : entries) {
    if (e.kind == StoreEntry::Kind::Foreign) continue;  // not ours to judge
    if (e.digest && live.digests.count(*e.digest)) {
      ++report.kept_live;
      continue;
    }
    const bool old = options.grace_seconds != INT64_MAX && e.mtime + options.grace_seconds <= now;
    if (!old) {
      ++report.kept_young;
      continue;
    }
    if (!options.dry_run) {
      // The age again, just before deleting: a clean may have used it.
      const Removal removal = store.remove(e, ::time(nullptr) - options.grace_seconds);
      if (removal == Removal::Gone) continue;
      if (removal == Removal::Fresh) {
        ++report.kept_young;
        continue;
      }
    }
    report.removed.push_back({(store.root() / e.relative).lexically_relative(ws.top()).string(), e.size});
    report.bytes_freed += e.size;
    if (e.digest) unstage.push_back(tracked_blob_path(*e.digest));
  }
  // Only a work tree's own store has entries in its index.
  if (!options.dry_run && !unstage.empty() && ws.in_work_tree()) GitCli(ws.top()).remove_from_index(unstage);
  return report;
}

}  // namespace jpblob
