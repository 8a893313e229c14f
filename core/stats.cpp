#include "stats.hpp"

#include <mutex>

#include "live_set.hpp"

namespace jpblob {

StatsReport run_stats(const Workspace& ws, const Progress& progress) {
  StatsReport s;
  std::mutex mutex;
  for_each_document(
      ws,
      [&](const DocumentRef& doc, const std::string& text) {
        if (doc.origin != DocumentOrigin::WorkTree) return;  // the work tree's view only
        const DocumentNeeds needs = document_needs(doc.kind, text, 0);
        if (needs.unreadable) return;
        std::lock_guard lock(mutex);
        ++s.conversations;
        s.references += needs.references.size();
        s.inline_payloads += needs.inline_payloads.size();
        // A session's blob: URLs declare no size; sessions count only what
        // they hold inline.
        for (const auto& r : needs.references) s.referenced_bytes += r.size.value_or(0);
        for (const auto& p : needs.inline_payloads) {
          s.referenced_bytes += p.size.value_or(0);
          s.inline_bytes += p.size.value_or(0);
        }
      },
      progress);
  for (const StoreEntry& e : ws.store().entries()) {
    if (e.kind != StoreEntry::Kind::Blob) continue;
    ++s.unique_blobs;
    s.stored_bytes += e.size;
    s.unique_bytes += ws.store().trailer_size(e).value_or(0);
  }
  return s;
}

}  // namespace jpblob
