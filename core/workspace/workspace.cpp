#include "core/workspace/workspace.hpp"

#include <exception>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <mutex>

#include "core/documents/document.hpp"
#include "core/base/error.hpp"
#include "core/git/config_reader.hpp"
#include "core/workspace/shared_config.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

int parse_compression_level(const std::string& v) {
  const auto level = parse_config_size("jpblob.compressionLevel", v);
  if (level > 9)
    throw Error("bad value for git config jpblob.compressionLevel: '" + v + "' is not a level from 0 to 9");
  return static_cast<int>(level);
}

}  // namespace

Settings load_settings(const GitRepo* repo, const SafeDir* work_tree) {
  Settings s;
  // In-process: every filter reads these when it starts.
  const ConfigReader config = ConfigReader::of(repo);
  if (auto v = config.get("jpblob.compressionLevel")) s.store.compression_level = parse_compression_level(*v);
  if (auto v = config.get_size("jpblob.maxBlobSize")) s.store.max_blob_size = *v;
  if (auto v = config.get_size("jpblob.minSize")) s.min_size = *v;
  if (auto v = config.get_size("core.bigFileThreshold")) s.big_file_threshold = *v;
  if (auto v = config.get_bool("jpblob.fsync")) s.store.fsync = *v;
  if (auto v = config.get("jpblob.smudge")) {
    if (*v == "refs") s.smudge_refs_only = s.refs_mode = true;
    else if (*v != "restore")
      throw Error("bad value for git config jpblob.smudge: '" + *v +
                  "' (expected 'restore' or 'refs')");
  }
  if (const char* skip = std::getenv("JPBLOB_SKIP_SMUDGE"); skip && std::strcmp(skip, "1") == 0)
    s.smudge_refs_only = true;
  if (auto v = config.get_bool("jpblob.skipSmudgeErrors")) s.skip_smudge_errors = *v;
  if (const char* skip = std::getenv("JPBLOB_SKIP_SMUDGE_ERRORS"); skip && std::strcmp(skip, "1") == 0)
    s.skip_smudge_errors = true;
  if (work_tree) apply_shared_settings(s, *work_tree);
  return s;
}

void apply_shared_settings(Settings& s, const SafeDir& work_tree) { apply_shared_config(s, read_shared_config(work_tree)); }

void apply_shared_config(Settings& s, SharedConfig shared) {
  for (auto& w : shared.warnings) s.warnings.push_back(std::move(w));
  // What changes committed bytes comes from .jpblobconfig when it says (the
  // last value of a key); a value that does not parse leaves the personal
  // one, with a warning naming the key.
  auto last = [&](std::string_view key) -> const std::string* {
    const std::string* found = nullptr;
    for (const auto& [k, v] : shared.values)
      if (k == key) found = &v;
    return found;
  };
  auto ignore = [&](const std::string& key, const std::string& value, const std::string& why) {
    s.warnings.push_back(std::string(kSharedConfigFile) + ": ignoring " + key + " = '" + value + "': " + why +
                         "; the personal or default value applies");
  };
  if (const std::string* v = last("jpblob.compressionlevel")) {
    try {
      s.store.compression_level = parse_compression_level(*v);
    } catch (const Error&) {
      ignore("jpblob.compressionLevel", *v, "not a level from 0 to 9");
    }
  }
  if (const std::string* v = last("jpblob.minsize")) {
    try {
      s.min_size = parse_config_size("jpblob.minSize", *v);
    } catch (const Error&) {
      ignore("jpblob.minSize", *v, *v == "true" ? "a key with no value, not a size" : "not a size (such as 4k)");
    }
  }
}

void Workspace::finish() const {
  // Both are tried: either failing must not keep the other from its work.
  std::exception_ptr failed;
  try {
    if (committed_form_) committed_form_->flush();
  } catch (...) {
    failed = std::current_exception();
  }
  if (new_blobs_) new_blobs_->finish();  // null when moved from
  if (failed) std::rethrow_exception(failed);
}

InputForm Workspace::work_tree_form(const std::string& path) const {
  if (settings_.smudge_refs_only) return InputForm::Committed;
  if (committed_form_ && committed_form_->contains(path)) return InputForm::Committed;
  return InputForm::WorkTree;
}

Workspace::~Workspace() {
  try {
    finish();
  } catch (const std::exception& e) {
    // A command that did not call finish() (the merge driver, migrate):
    // a kept link's failure costs a second home, a pending pack's the
    // blobs themselves, which `git jpblob repair` stores again.
    std::cerr << "git-jpblob: warning: " << e.what() << '\n';
  } catch (...) {
  }
}

std::optional<std::string> Workspace::find_blob(const Digest& digest,
                                               std::optional<std::uint64_t> size) const {
  return source_->find(digest, size, std::nullopt);
}

std::vector<std::string> Workspace::read_shared_settings() {
  if (shared_read_) return {};
  shared_read_ = true;
  // A --store folder is no work tree: it has no .jpblobconfig.
  if (!in_work_tree_ || !base_) return {};
  Settings shared = settings_;
  shared.warnings.clear();
  apply_shared_settings(shared, *base_);
  settings_.min_size = shared.min_size;
  settings_.store.compression_level = shared.store.compression_level;
  store_->set_compression_level(shared.store.compression_level);
  if (kept_) kept_->set_compression_level(shared.store.compression_level);
  return shared.warnings;
}

bool Workspace::stages_from_git_folder() const {
  // A store that cannot be used (a link outside) is refused at the add, as
  // before, in a tree not lean yet.
  return lean_ || (in_work_tree_ && store_->usable() && lean_or_becoming(*repo_));
}

void Workspace::send_new_blobs_to_git_folder() {
  if (lean_ || !stages_from_git_folder()) return;
  new_blobs_ = std::make_unique<NewBlobs>(*store_, kept_.get(), held_in_index(*repo_), false);
  new_blobs_in_git_folder_ = true;
}

Workspace Workspace::open(const fs::path& cwd, const std::optional<fs::path>& store_dir, SharedSettings shared) {
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
  w.settings_ = load_settings(w.repo());
  w.store_ = std::make_unique<BlobStore>(store_dir ? BlobStore::for_storage(w.top_, w.top_, w.settings_.store)
                                                   : BlobStore::for_work_tree(w.top_, w.settings_.store));
  // A lean work tree (core/lean/lean_tree): clean writes no file for a blob git holds
  // out of the work tree, or the next status would look at it again.
  w.lean_ = w.in_work_tree_ && is_lean(*w.repo_);
  // With no repository, cwd/.jp/blobs would be a store nothing commits or
  // cleans: most likely a command run in the wrong folder.
  if (!store_dir && !w.repo_) w.store_->refuse_writes("not in a git repository; pass --store <folder>");
  // What clean writes into a work tree also goes where git never deletes
  // it (core/lean/kept_copies); in a lean one, only there (new_blobs()).
  if (w.in_work_tree_) {
    w.kept_ = std::make_unique<KeptCopies>(*w.repo_, w.settings_.store);
    w.committed_form_ = std::make_unique<CommittedFormRecord>(w.repo_->gitdir());
  }
  // In a lean tree, no file for a blob git holds out of the work tree
  // already: the index is asked first (read once, on the first blob).
  w.new_blobs_in_git_folder_ = w.lean_;
  w.new_blobs_ = std::make_unique<NewBlobs>(*w.store_, w.kept_.get(),
                                            w.lean_ ? held_in_index(*w.repo_) : HeldInIndex{});
  w.source_ = std::make_unique<BlobLookup>(*w.store_, w.kept_ ? &w.kept_->store() : nullptr,
                                           w.in_work_tree_ ? w.repo() : nullptr,
                                           w.kept_ ? &w.kept_->pending() : nullptr);
  if (shared == SharedSettings::Read) w.settings_.warnings = w.read_shared_settings();
  return w;
}

}  // namespace jpblob
