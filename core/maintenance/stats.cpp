#include "core/maintenance/stats.hpp"

#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/maintenance/index_blobs.hpp"
#include "core/maintenance/live_set.hpp"

namespace jpblob {

namespace {

// New blobs written into git's objects as pending packs
// (core/lean/pending_packs), as a lean tree's clean writes them: each one
// `stored` lacks is counted in `s` and added to it.
void count_pending_blobs(const Workspace& ws, std::unordered_map<Digest, std::uint64_t, DigestHash>& stored,
                         StatsReport& s) {
  if (ws.kept() && ws.repo())
    for (const PendingPacks::Pack& pack : ws.kept()->pending().packs())
      for (const auto& [digest, id] : pack.blobs) {
        if (stored.count(digest)) continue;
        const auto gz = ws.repo()->object_size(id);
        std::optional<std::string> bytes;
        try {
          bytes = gz ? ws.kept()->pending().fetch(digest, std::nullopt) : std::nullopt;
        } catch (const Error&) {
          continue;  // corrupt: verify says so
        }
        if (!bytes) continue;
        ++s.unique_blobs;
        s.stored_bytes += *gz;
        s.unique_bytes += bytes->size();
        stored.emplace(digest, bytes->size());
      }
}

}  // namespace

StatsReport run_stats(const Workspace& ws, const Progress& progress) {
  StatsReport s;
  std::mutex mutex;
  // Every payload's blob and size; whether the store holds it is asked
  // once the store has been listed.
  std::vector<std::pair<Digest, std::uint64_t>> payloads;
  // The work trees' files only: staged and stashed versions would be read
  // for nothing, and would count each conversation twice.
  for_each_document(
      ws,
      [&](const DocumentRef& doc, const std::string& text) {
        const DocumentNeeds needs = document_needs(doc.kind, text, 0, form_of(ws, doc));
        if (needs.unreadable) return;
        std::lock_guard lock(mutex);
        ++s.conversations;
        s.references += needs.references.size();
        s.inline_payloads += needs.inline_payloads.size();
        // A session's blob: URLs declare no size; sessions count only what
        // they hold inline.
        for (const auto& r : needs.references) {
          s.referenced_bytes += r.size.value_or(0);
          payloads.emplace_back(r.digest, r.size.value_or(0));
        }
        for (const auto& p : needs.inline_payloads) {
          s.referenced_bytes += p.size.value_or(0);
          s.inline_bytes += p.size.value_or(0);
          payloads.emplace_back(p.digest, p.size.value_or(0));
        }
      },
      progress, nullptr, /*skip_unchanged=*/false, DocumentHomes::WorkTrees);
  std::unordered_map<Digest, std::uint64_t, DigestHash> stored;  // blob -> uncompressed size
  for (const StoreEntry& e : ws.store().entries()) {
    if (e.kind != StoreEntry::Kind::Blob) continue;
    ++s.unique_blobs;
    s.stored_bytes += e.size;
    const std::uint64_t size = ws.store().trailer_size(e).value_or(0);
    s.unique_bytes += size;
    stored.emplace(*e.digest, size);
  }
  // Blobs not committed yet whose only file is a kept copy: every new blob
  // of a lean work tree (Workspace::new_blobs), or one whose work-tree
  // file git deleted.
  if (const BlobStore* kept = ws.kept() ? &ws.kept()->store() : nullptr)
    for (const StoreEntry& e : kept->entries()) {
      if (e.kind != StoreEntry::Kind::Blob || stored.count(*e.digest)) continue;
      ++s.unique_blobs;
      s.stored_bytes += e.size;
      const std::uint64_t size = kept->trailer_size(e).value_or(0);
      s.unique_bytes += size;
      stored.emplace(*e.digest, size);
    }
  count_pending_blobs(ws, stored, s);
  // A lean work tree's committed blobs: in git's objects, not in the store.
  std::unordered_set<Digest, DigestHash> in_store;
  for (const auto& [digest, size] : stored) in_store.insert(digest);
  const std::vector<IndexBlob> in_git = index_only_blobs(ws, in_store);
  const std::vector<IndexBlobCheck> checks = check_index_blobs(ws, in_git);
  for (std::size_t i = 0; i < in_git.size(); ++i) {
    if (!checks[i].size) continue;  // absent from this clone's objects, or corrupt (verify says which)
    ++s.unique_blobs;
    s.stored_bytes += checks[i].stored;
    s.unique_bytes += *checks[i].size;
    stored.emplace(in_git[i].digest, *checks[i].size);
  }
  std::unordered_set<Digest, DigestHash> counted;
  for (const auto& [digest, declared] : payloads) {
    const auto blob = stored.find(digest);
    if (blob == stored.end()) {
      ++s.unstored_payloads;
      s.unstored_bytes += declared;
      continue;
    }
    ++s.stored_payloads;
    s.stored_payload_bytes += blob->second;
    if (counted.insert(digest).second) s.stored_payload_unique_bytes += blob->second;
  }
  return s;
}

}  // namespace jpblob
