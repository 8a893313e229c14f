#include "core/store/blob_lookup.hpp"

#include "core/base/error.hpp"
#include "core/git/git_cli.hpp"

namespace jpblob {

namespace {

class AtTreeish : public BlobSource {
 public:
  AtTreeish(const BlobLookup& lookup, std::optional<std::string> treeish)
      : lookup_(lookup), treeish_(std::move(treeish)) {}
  std::optional<std::string> fetch(const Digest& digest, std::optional<std::uint64_t> size) const override {
    return lookup_.find(digest, size, treeish_);
  }

 private:
  const BlobLookup& lookup_;
  std::optional<std::string> treeish_;
};

}  // namespace

std::unique_ptr<BlobSource> BlobLookup::at(std::optional<std::string> treeish) const {
  return std::make_unique<AtTreeish>(*this, std::move(treeish));
}

std::optional<std::string> BlobLookup::read_object(const std::string& id, const std::string& path) const {
  std::optional<std::string> raw = repo_->read_object(id);
  if (!raw && repo_->workdir()) raw = GitCli(*repo_->workdir()).read_blob(id);  // a partial clone fetches
  if (raw && is_lfs_pointer(*raw) && repo_->workdir()) {
    // .jp/blobs tracked by git-lfs: the object its pointer names, from
    // git-lfs itself (its local store, or a download).
    raw = GitCli(*repo_->workdir()).lfs_smudge(*raw, path);
  }
  return raw;
}

std::string BlobLookup::unreadable(const std::string& id, const std::string& path, const std::string& where) const {
  std::string why = path + " (" + where + ") is object " + id.substr(0, 12) + ", which could not be read";
  if (const auto remote = repo_->promisor_remote())
    why += " (this partial clone fetches it from its remote '" + *remote + "': is that reachable?)";
  return why;
}

void BlobLookup::prefetch(const std::string& treeish) const {
  if (!repo_->workdir() || !prefetched_.insert(treeish).second) return;
  const auto remote = repo_->promisor_remote();
  if (!remote) return;  // not a partial clone: the object is simply absent
  const GitCli git(*repo_->workdir());
  std::vector<std::string> missing;
  for (const TreeEntry& e : git.tree_entries(treeish, {literal_pathspec(kWorkTreeStore)}))
    if (e.type == "blob" && !repo_->has_object(e.id)) missing.push_back(e.id);
  // A failed fetch is not an error here: each object is then asked for on
  // its own, and the one that git cannot give either fails its file.
  git.fetch_objects(*remote, missing);
}

std::optional<std::string> BlobLookup::find(const Digest& digest, std::optional<std::uint64_t> size,
                                            const std::optional<std::string>& treeish) const {
  // A corrupt work-tree copy (planted, or half-written by another tool)
  // does not hide a good one in git's objects; with none, its error stands.
  std::optional<std::string> store_error;
  for (const BlobStore* store : {&store_, kept_}) {
    if (!store) continue;
    try {
      if (auto bytes = store->get(digest, size)) return bytes;
    } catch (const Error& e) {
      if (!store_error) store_error = e.what();
    }
  }
  if (pending_) {
    try {
      if (auto bytes = pending_->fetch(digest, size)) return bytes;
    } catch (const Error& e) {
      if (!store_error) store_error = e.what();
    }
  }
  auto bytes = find_in_git(digest, size, treeish);
  if (!bytes && store_error) throw Error(*store_error);
  return bytes;
}

std::optional<std::string> BlobLookup::find_in_git(const Digest& digest, std::optional<std::uint64_t> size,
                                                   const std::optional<std::string>& treeish) const {
  if (!repo_) return std::nullopt;
  // libgit2 objects are not to be shared between threads: each call into it
  // holds the lock, and the inflating and checking, the costly part, run
  // outside it, on every core (a lean work tree reads every blob from here).
  auto locked = [this](auto&& fn) {
    const auto lock = repo_->lock();
    return fn();
  };
  const std::string path = tracked_blob_path(digest);
  const std::uint64_t max = store_.options().max_blob_size;
  std::optional<std::string> first_error;
  // Each copy is verified; a corrupt one does not hide a good one further on.
  auto check = [&](const std::optional<std::string>& raw, const std::string& where) -> std::optional<std::string> {
    if (!raw) return std::nullopt;
    try {
      return decode_blob(*raw, digest, size, max, path + " (" + where + ")");
    } catch (const Error& e) {
      if (!first_error) first_error = e.what();
      return std::nullopt;
    }
  };
  // A tree that names an object git cannot give (a partial clone whose
  // remote is gone or refuses) is not a missing blob: say which.
  auto try_copy = [&](const std::optional<std::string>& id, const std::string& where) -> std::optional<std::string> {
    if (!id) return std::nullopt;
    return check(locked([&] {
                   auto raw = read_object(*id, path);
                   if (!raw && !first_error) first_error = unreadable(*id, path, where);
                   return raw;
                 }),
                 where);
  };
  if (treeish)
    if (auto bytes = try_copy(locked([&] {
                                auto id = repo_->blob_id_at(*treeish, path);
                                if (id && !repo_->has_object(*id)) prefetch(*treeish);
                                return id;
                              }),
                              "in " + treeish->substr(0, 12)))
      return bytes;
  if (auto raw = locked([&] { return repo_->read_staged(path); })) {
    if (is_lfs_pointer(*raw) && repo_->workdir())
      raw = GitCli(*repo_->workdir()).lfs_smudge(*raw, path).value_or(*raw);
    if (auto bytes = check(raw, "index")) return bytes;
  }
  if (auto bytes = try_copy(locked([&] { return repo_->blob_id_at("HEAD", path); }), "HEAD")) return bytes;
  std::vector<std::string> ids;
  locked([&] {
    if (!history_ && repo_->workdir()) {
      history_.emplace();
      for (auto& [p, id] : GitCli(*repo_->workdir()).blobs_in_history(std::string(kWorkTreeStore)))
        if (auto d = digest_of_tracked_path(p)) history_->emplace(*d, std::move(id));
    }
    if (history_) {
      const auto [from, to] = history_->equal_range(digest);
      for (auto it = from; it != to; ++it) ids.push_back(it->second);
    }
    return 0;
  });
  for (const std::string& id : ids)
    if (auto bytes = try_copy(id, "history")) return bytes;
  if (first_error) throw Error(*first_error);
  return std::nullopt;
}

}  // namespace jpblob
