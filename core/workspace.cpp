#include "workspace.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <strings.h>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "document.hpp"
#include "error.hpp"
#include "git_cli.hpp"
#include "gzip.hpp"
#include "lean.hpp"
#include "shared_config.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

}  // namespace

Settings load_settings(const GitRepo* repo, const SafeDir* work_tree) {
  Settings s;
  const auto shared = work_tree ? read_shared_config(*work_tree) : decltype(read_shared_config(*work_tree)){};
  auto get = [&](const std::string& key) -> std::optional<std::string> {
    // What changes committed bytes comes from .jpblobconfig when it says.
    std::optional<std::string> value;
    for (const auto& [k, v] : shared)
      if (strcasecmp(k.c_str(), key.c_str()) == 0) value = v;
    if (value) return value;
    return repo ? repo->config(key) : command_line_config_value(key);
  };
  if (auto v = get("jpblob.compressionLevel")) {
    const auto level = parse_config_size("jpblob.compressionLevel", *v);
    if (level > 9)
      throw Error("bad value for git config jpblob.compressionLevel: '" + *v +
                  "' is not a level from 0 to 9");
    s.store.compression_level = static_cast<int>(level);
  }
  if (auto v = get("jpblob.maxBlobSize")) s.store.max_blob_size = parse_config_size("jpblob.maxBlobSize", *v);
  if (auto v = get("jpblob.minSize")) s.min_size = parse_config_size("jpblob.minSize", *v);
  if (auto v = get("jpblob.fsync")) s.store.fsync = parse_config_bool("jpblob.fsync", *v);
  if (auto v = get("jpblob.smudge")) {
    if (*v == "refs") s.smudge_refs_only = true;
    else if (*v != "restore")
      throw Error("bad value for git config jpblob.smudge: '" + *v +
                  "' (expected 'restore' or 'refs')");
  }
  if (const char* skip = std::getenv("JPBLOB_SKIP_SMUDGE"); skip && std::strcmp(skip, "1") == 0)
    s.smudge_refs_only = true;
  return s;
}

std::optional<std::string> Workspace::find_blob(const Digest& digest,
                                               std::optional<std::uint64_t> size) const {
  return source_->find(digest, size, std::nullopt);
}

Workspace Workspace::open(const fs::path& cwd, const std::optional<fs::path>& store_dir) {
  Workspace w;
  if (auto repo = GitRepo::open(cwd)) w.repo_ = std::make_unique<GitRepo>(std::move(*repo));
  if (store_dir) {
    w.top_ = fs::absolute(cwd / *store_dir);
    w.storage_ = ".";
  } else {
    w.top_ = w.repo_ && w.repo_->workdir() ? *w.repo_->workdir() : cwd;
    w.in_work_tree_ = w.repo_ && w.repo_->workdir();
    w.storage_ = kStorageFolder;
  }
  std::error_code ec;
  if (fs::is_directory(w.top_, ec)) w.base_ = std::make_unique<SafeDir>(SafeDir::open(w.top_));
  // A --store folder is no work tree: it has no .jpblobconfig.
  w.settings_ = load_settings(w.repo(), w.in_work_tree_ ? w.base_.get() : nullptr);
  w.store_ = std::make_unique<BlobStore>(store_dir ? BlobStore::for_storage(w.top_, w.top_, w.settings_.store)
                                                   : BlobStore::for_work_tree(w.top_, w.settings_.store));
  // A lean work tree (core/lean): clean writes no file for a blob git holds
  // out of the work tree, or the next status would look at it again. The
  // index is read once, on the first blob that needs it; git's copy of a
  // blob is read and compared once, and only a copy holding the content
  // stands for it (a planted corrupt one must not take the bytes' place).
  if (w.in_work_tree_ && is_lean(*w.repo_)) {
    struct Held {
      std::once_flag once;
      std::unordered_map<std::string, std::string> ids;  // tracked path -> blob id
      std::mutex mutex;                                   // the repository, one reader at a time
      std::unordered_set<std::string> sound;              // ids found to hold their content
    };
    auto held = std::make_shared<Held>();
    const GitRepo* repo = w.repo_.get();
    w.store_->set_held_by_git([held, repo](const Digest& digest, std::string_view content) {
      using GitCopy = BlobStore::GitCopy;
      std::call_once(held->once, [&] {
        for (auto& [path, id] : repo->skip_worktree_entries(kWorkTreeStore)) held->ids.emplace(path, id);
      });
      const auto it = held->ids.find(tracked_blob_path(digest));
      if (it == held->ids.end()) return GitCopy::None;
      std::optional<std::string> raw;
      {
        std::lock_guard lock(held->mutex);
        if (held->sound.count(it->second)) return GitCopy::Holds;
        raw = repo->read_object(it->second);
      }
      // A partial clone's missing object, or a git-lfs pointer: the file is
      // written, as with no copy.
      if (!raw || is_lfs_pointer(*raw)) return GitCopy::None;
      if (!gzip_holds(*raw, content)) return GitCopy::Differs;
      std::lock_guard lock(held->mutex);
      held->sound.insert(it->second);
      return GitCopy::Holds;
    });
  }
  // With no repository, cwd/.jp/blobs would be a store nothing commits or
  // cleans: most likely a command run in the wrong folder.
  if (!store_dir && !w.repo_) w.store_->refuse_writes("not in a git repository; pass --store <folder>");
  w.source_ = std::make_unique<BlobLookup>(*w.store_, w.in_work_tree_ ? w.repo() : nullptr);
  return w;
}

}  // namespace jpblob
