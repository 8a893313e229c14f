#include "core/lean/new_blobs.hpp"

#include <algorithm>
#include <optional>

#include "core/base/error.hpp"
#include "core/base/parallel.hpp"

namespace jpblob {

NewBlobs::NewBlobs(const BlobStore& store, const KeptCopies* kept, HeldInIndex held, bool lean)
    : store_(store), kept_(kept), held_(std::move(held)), lean_(lean && held_) {}

const BlobStore& NewBlobs::home() const { return lean_ && kept_ ? kept_->store() : store_; }

GitCopy NewBlobs::ask_index(const Digest& digest, std::string_view bytes) const {
  const GitCopy copy = held_ ? held_(digest, bytes) : GitCopy::None;
  // A file would not reach the commit (git keeps the index's copy out of
  // the work tree) and the next checkout would delete it.
  if (copy == GitCopy::Differs)
    throw CorruptBlobInTheWay("blob " + tracked_blob_path(digest) +
                              " in git's index does not hold what its name says, so it cannot stand for the "
                              "content being stored. Run `git jpblob repair`, which stages it again from this "
                              "content, then try again");
  return copy;
}

std::vector<BlobPut> NewBlobs::put_all(const std::vector<std::string_view>& payloads) const {
  if (!held_ || !kept_) {
    std::vector<std::optional<Digest>> hashed(payloads.size());
    parallel_for(payloads.size(), [&](std::size_t i) { hashed[i] = Sha256::of(payloads[i]); });
    std::vector<Digest> digests;
    digests.reserve(payloads.size());
    for (const auto& d : hashed) digests.push_back(*d);
    auto results = store_.put_all(payloads, digests, false);
    std::lock_guard lock(unkept_->mutex);
    for (const BlobPut& r : results)
      if (r.written) {
        unkept_->store_unsynced = true;
        if (kept_) unkept_->digests.push_back(r.digest);
      }
    return results;
  }
  // Lean: what the index holds is not written; the rest goes to the kept
  // copies, hashed once for both questions.
  std::vector<std::optional<Digest>> digests(payloads.size());
  std::vector<char> held(payloads.size(), 0);
  parallel_for(payloads.size(), [&](std::size_t i) {
    digests[i] = Sha256::of(payloads[i]);
    held[i] = ask_index(*digests[i], payloads[i]) == GitCopy::Holds;
  });
  std::vector<std::string_view> rest;
  std::vector<Digest> rest_digests;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < payloads.size(); ++i)
    if (!held[i]) {
      rest.push_back(payloads[i]);
      rest_digests.push_back(*digests[i]);
      at.push_back(i);
    }
  std::vector<BlobPut> results;
  results.reserve(payloads.size());
  for (std::size_t i = 0; i < payloads.size(); ++i) results.push_back({*digests[i], false});
  if (rest.empty()) return results;
  // Written once, into git's objects (core/lean/pending_packs), where
  // git's own rules can keep them: no file, sync or second write a blob.
  if (kept_->pending().usable()) {
    const auto written = kept_->pending().put_all(rest, rest_digests);
    for (std::size_t k = 0; k < at.size(); ++k) results[at[k]].written = written[k];
    return results;
  }
  const auto stored = kept_->put_all(rest, rest_digests, false);
  if (std::any_of(stored.begin(), stored.end(), [](const BlobPut& r) { return r.written; })) {
    std::lock_guard lock(unkept_->mutex);
    unkept_->kept_unsynced = true;
  }
  for (std::size_t k = 0; k < at.size(); ++k) results[at[k]].written = stored[k].written;
  return results;
}

BlobPut NewBlobs::put(const Digest& digest, std::string_view bytes) const {
  if (lean_ && kept_) {
    if (ask_index(digest, bytes) == GitCopy::Holds) return {digest, false};
    return kept_->put(digest, bytes);
  }
  return put_in_work_tree(digest, bytes);
}

BlobPut NewBlobs::put_in_work_tree(const Digest& digest, std::string_view bytes) const {
  if (lean_ && ask_index(digest, bytes) == GitCopy::Holds) return {digest, false};
  const BlobPut put = store_.put(digest, bytes);
  if (put.written && kept_) kept_->keep(store_, {digest}, store_.options().fsync);
  return put;
}

bool NewBlobs::replace_corrupt(const Digest& digest, std::string_view bytes) const {
  if (lean_ && kept_) return kept_->replace_corrupt(digest, bytes);
  const bool replaced = store_.replace_corrupt(digest, bytes);
  if (replaced && kept_) kept_->mend(digest, bytes);
  return replaced;
}

void NewBlobs::finish() const {
  std::vector<Digest> digests;
  bool store_unsynced = false, kept_unsynced = false;
  {
    std::lock_guard lock(unkept_->mutex);
    digests.swap(unkept_->digests);
    std::swap(store_unsynced, unkept_->store_unsynced);
    std::swap(kept_unsynced, unkept_->kept_unsynced);
  }
  // A pending pack first: its blobs have no other home. Then the names
  // put_all() published, made durable once (the bytes were synced before
  // any was published). One sync covers the links made below too where the
  // kept copies share the store's file system.
  std::string unstored;
  if (kept_) {
    try {
      kept_->pending().flush();
    } catch (const Error& e) {
      unstored = std::string(e.what()) +
                 ": the new blobs of this command are not stored; the conversations still hold them inline, "
                 "and `git jpblob repair` stores them again";
    }
  }
  try {
    const bool sync = store_.options().fsync;
    if (sync && store_unsynced) store_.sync();
    if (sync && kept_unsynced && kept_) kept_->store().sync();
    if (kept_) kept_->keep(store_, digests, sync);
  } catch (const Error& e) {
    if (unstored.empty()) throw Error(std::string(e.what()) + " (the blob files themselves are stored)");
  }
  if (!unstored.empty()) throw Error(unstored);
}

}  // namespace jpblob
