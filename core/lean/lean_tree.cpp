#include "core/lean/lean_tree.hpp"

#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/base/parallel.hpp"
#include "core/base/trace.hpp"
#include "core/format/gzip.hpp"
#include "core/git/config_reader.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

// Appends kStoreIgnored to an exclude file unless it holds it.
void add_store_ignored(const fs::path& file) {
  std::error_code ec;
  std::string text = fs::is_regular_file(file, ec) ? read_file(file) : "";
  if (text.find(kStoreIgnored) != std::string::npos) return;
  if (!text.empty() && !text.ends_with('\n')) text.push_back('\n');
  fs::create_directories(file.parent_path());
  write_file_atomic(file, text + std::string(kStoreIgnored));
}

constexpr std::string_view kStoreExclusion = "!/.jp/blobs/";

bool holds_line(const std::string& text, std::string_view line) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (l == line) return true;
  return false;
}

// True when the git blob `id` gives back `file` byte for byte: it holds
// those bytes, or it is a git-lfs pointer to them (.jp/blobs tracked by
// git-lfs, whose own store then holds them; smudge reads them through it).
bool gives_back(const GitRepo& repo, const std::string& id, const std::string& file) {
  if (repo.hash_blob(file) == id) return true;
  std::optional<std::string> object;
  {
    const auto lock = repo.lock();  // called from several threads
    object = repo.read_object(id);
  }
  if (!object || !is_lfs_pointer(*object)) return false;
  const std::string oid = "\noid sha256:" + Sha256::of(file).hex() + "\n";
  const std::string size = "\nsize " + std::to_string(file.size()) + "\n";
  return object->find(oid) != std::string::npos && object->find(size) != std::string::npos;
}

}  // namespace

std::size_t drop_blob_files(const LeanParts& parts, const std::vector<GitCli>& indexes,
                            const std::vector<std::string>& paths, const GitCli* keeper,
                            const std::unordered_map<std::string, std::string>* known, const MarkSkipWorktree& mark) {
  if (indexes.empty() || paths.empty()) return 0;
  using Ids = std::unordered_map<std::string, std::string>;  // tracked path -> blob id
  Ids asked;
  if (!known) asked = indexes.front().index_ids(paths);
  const Ids& staged = known ? *known : asked;
  const Ids kept = keeper ? keeper->index_ids(paths) : Ids{};
  struct Candidate {
    Digest digest;
    std::string id;  // the blob git holds
  };
  std::vector<Candidate> candidates;
  for (const std::string& path : paths) {
    const auto digest = digest_of_tracked_path(path);
    const auto id = staged.find(path);
    if (!digest || id == staged.end()) continue;
    // An aborted `git commit -a` throws its index away: the file is then
    // the only copy of a blob the real index may reference.
    if (const auto k = kept.find(path); keeper && (k == kept.end() || k->second != id->second)) continue;
    candidates.push_back({*digest, id->second});
  }
  // Only a file git can give back byte for byte leaves. Reads and
  // deletions wait on the disk (a clone drops thousands: one at a time, a
  // disk that discards each freed block made it 10 s for 4,000), so
  // several wait at once, as gc's deletions do.
  std::vector<char> gives(candidates.size(), 0);
  parallel_for(
      candidates.size(),
      [&](std::size_t i) {
        const auto raw = parts.store.read_raw(candidates[i].digest);
        gives[i] = raw && gives_back(parts.repo, candidates[i].id, *raw);
      },
      kDiskWaiters);
  std::vector<Candidate> drop;
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (gives[i]) drop.push_back(std::move(candidates[i]));
  std::vector<std::string> marked;
  for (const Candidate& c : drop) marked.push_back(tracked_blob_path(c.digest));
  if (mark)
    mark(marked);
  else
    for (const GitCli& index : indexes) index.set_skip_worktree(marked);
  std::vector<StoreEntry> entries;
  for (const Candidate& c : drop) entries.push_back(parts.store.entry_for(c.digest));
  std::vector<const StoreEntry*> doomed;
  for (const StoreEntry& e : entries) doomed.push_back(&e);
  parts.store.remove_all(doomed, [](std::size_t) { return std::numeric_limits<std::time_t>::max(); }, kDiskWaiters);
  // The kept copies go with the files: what `git commit -a` staged leaves
  // here, at the next commit.
  std::vector<Digest> digests;
  for (const Candidate& c : drop) digests.push_back(c.digest);
  if (parts.kept) parts.kept->drop_held(staged, digests);
  JPBLOB_TRACE("lean: " + std::to_string(drop.size()) + " of " + std::to_string(paths.size()) +
               " blob files left the work tree (git's objects give them back); the others stay");
  return drop.size();
}

HeldInIndex held_in_index(const GitRepo& repo) {
  struct Held {
    std::once_flag once;
    std::unordered_map<std::string, IndexEntry> entries;  // by tracked path
    // Paths whose id was found to hold their content, under repo.lock().
    // By path, not by id: two names planted with one file's bytes share
    // an id, and only the name that file's content hashes to is sound.
    std::unordered_set<std::string> sound;
  };
  auto held = std::make_shared<Held>();
  return [held, &repo](const Digest& digest, std::string_view content) {
    // repo.lock(): smudges delayed on other threads read the same index.
    std::call_once(held->once, [&] {
      const auto lock = repo.lock();
      // Every staged entry, skip-worktree or not yet: while make_lean()
      // marks them, git's index write re-cleans the conversations the
      // clone's checkout wrote in the index's second (racily clean), and
      // each blob would otherwise be written to the kept folder again.
      for (auto& e : repo.index_entries(kWorkTreeStore, GitRepo::Entries::All)) held->entries.emplace(e.path, e);
    });
    const auto it = held->entries.find(tracked_blob_path(digest));
    if (it == held->entries.end()) return GitCopy::None;
    const IndexEntry& entry = it->second;
    std::optional<std::string> raw;
    {
      const auto lock = repo.lock();
      if (held->sound.count(entry.path)) return GitCopy::Holds;
      raw = repo.read_object(entry.id);
    }
    // A partial clone's missing object, or a git-lfs pointer: the file is
    // written, as with no copy.
    if (!raw || is_lfs_pointer(*raw)) return GitCopy::None;
    // A wrong copy git keeps out of the work tree would stand for the
    // content: refused. One not marked so (a stash or reset put it back)
    // gets the content's own copy, which the hook stages over it.
    if (!gzip_holds(*raw, content)) return entry.skip_worktree ? GitCopy::Differs : GitCopy::None;
    const auto lock = repo.lock();
    held->sound.insert(entry.path);
    return GitCopy::Holds;
  };
}

bool is_lean(const GitRepo& repo) {
  if (ConfigReader::of(&repo).get_bool("core.sparseCheckout") != true) return false;
  std::error_code ec;
  const fs::path file = repo.gitdir() / "info" / "sparse-checkout";
  return fs::is_regular_file(file, ec) && holds_line(read_file(file), kStoreExclusion);
}

namespace {

std::optional<std::string> lean_refusal(const ConfigReader& config) {
  if (config.get_bool("jpblob.lean") == false)
    return "jpblob.lean is false here: this clone checks its committed blobs out";
  if (config.get("jpblob.smudge") == "refs")
    return "this clone keeps the reference form (jpblob.smudge=refs): JP with RFD 066 reads .jp/blobs, so its "
           "blobs stay checked out";
  if (config.get_bool("core.sparseCheckoutCone") == true && config.get_bool("core.sparseCheckout") == true)
    return "this clone uses cone-mode sparse checkout, whose patterns cannot leave .jp/blobs out; "
           "`git sparse-checkout set --no-cone` with your patterns plus !/.jp/blobs/ does it by hand";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> lean_refused(const GitCli& git) {
  auto why = lean_refusal(ConfigReader::through(git));
  if (why) JPBLOB_TRACE("lean: this work tree keeps its blob files: " + *why);
  return why;
}

bool lean_or_becoming(const GitRepo& repo) {
  return is_lean(repo) || !lean_refusal(ConfigReader::of(&repo));
}

bool tracks_blobs(const GitCli& git) { return git.tracks_any(std::string(kWorkTreeStore)); }

namespace {

// Gives each worktree settings of its own where there are several: git
// refuses `--worktree` beside other worktrees until each may have its own
// (as `git sparse-checkout` does before it sets a worktree's).
void own_worktree_settings(const RepoLayout& layout, const GitCli& git) {
  if (git.worktrees().size() > 1) git.use_worktree_config(layout.common_dir);
}

}  // namespace

bool records_end_of_entries(const GitCli& git) {
  try {
    const ConfigReader config = ConfigReader::through(git);
    if (const auto record = config.get_bool("index.recordEndOfIndexEntries")) return *record;
    // git's own rule: index.threads set, to any count of threads but one
    // (true and 0 are "as many as there are cores", false is 1).
    const auto threads = config.get_as(std::string(kIndexThreads), "bool-or-int");
    return threads && *threads != "false" && *threads != "1";
  } catch (const Error&) {
    return false;  // a value git refuses too, at its next read of the index
  }
}

void enter_lean(const RepoLayout& layout, const GitCli& git) {
  if (auto why = lean_refused(git)) throw Error(*why);
  std::error_code ec;
  std::string patterns = fs::is_regular_file(layout.sparse_checkout, ec) ? read_file(layout.sparse_checkout) : "";
  const ConfigReader config = ConfigReader::through(git);
  const bool was_sparse = config.get_bool("core.sparseCheckout") == true;
  if (!was_sparse || patterns.find_first_not_of(" \t\r\n") == std::string::npos) {
    patterns = std::string(kLeanPatterns);
  } else if (!holds_line(patterns, kStoreExclusion)) {
    if (!patterns.ends_with('\n')) patterns.push_back('\n');
    patterns.append(kStoreExclusion).push_back('\n');
  }
  fs::create_directories(layout.sparse_checkout.parent_path());
  write_file_atomic(layout.sparse_checkout, patterns);
  // Settings of this worktree alone: the others share the repository's
  // config.
  own_worktree_settings(layout, git);
  // Where git reads a work tree's own settings: `git sparse-checkout
  // disable` writes core.sparseCheckout=false to config.worktree, which
  // would win over the repository's config.
  git.config_set("core.sparseCheckout", "true", ConfigScope::Worktree);
  // git's sparse-checkout command takes cone mode by default, where these
  // patterns mean nothing; checkout itself does not.
  git.config_set("core.sparseCheckoutCone", "false", ConfigScope::Worktree);
  if (patterns == kLeanPatterns) git.config_set(std::string(kExpectFiles), "true", ConfigScope::Worktree);
  if (!config.get(std::string(kIndexThreads))) {
    git.config_set(std::string(kIndexThreads), "true", ConfigScope::Worktree);
    git.config_set(std::string(kSetIndexThreads), "true", ConfigScope::Worktree);
  }
  add_store_ignored(layout.common_dir / "info" / "exclude");
}

void make_lean(const RepoLayout& layout, const GitCli& git, const LeanParts& parts) {
  enter_lean(layout, git);
  JPBLOB_TRACE("lean: this work tree becomes lean: its checked-out blob files leave it");
  // The blobs this clone checked out leave (git's own `sparse-checkout
  // reapply` keeps any file whose stat data is racy, so the store does it).
  std::vector<std::string> checked_out;
  std::unordered_map<std::string, std::string> staged;
  for (IndexEntry& e : git.index_entries({literal_pathspec(kWorkTreeStore)})) {
    if (e.skip_worktree || e.stage != 0) continue;
    checked_out.push_back(e.path);
    staged.emplace(std::move(e.path), std::move(e.id));
  }
  // Marked in place (core/git/index_file): the conversations the checkout
  // wrote in the index's second stay racily clean, for the next `git
  // status` to check with the filter as after any checkout, and the cache
  // tree stays whole. git's own write cleaned each of them again here (1.6
  // s of a 1,000-conversation clone's 2.3 s hook), and without the filter
  // it marked them modified until a refresh (docs/lean.md, "What the
  // clone's hook costs").
  bool by_git = false;
  // The checkout wrote the index before the setting was there.
  const bool end_of_entries = records_end_of_entries(git);
  drop_blob_files(parts, {git}, checked_out, nullptr, &staged, [&](const std::vector<std::string>& marked) {
    if (git.set_skip_worktree_in_place(marked, end_of_entries)) return;
    git.set_skip_worktree(marked);
    by_git = true;
  });
  // git's marking empties the cache tree of .jp/blobs and of each folder
  // in it: every status until the first commit took 90 ms where git's own
  // checkout of the same index takes 65 (bench "status after clone").
  if (by_git) git.rebuild_cache_tree();
}

bool leave_lean(const RepoLayout& layout, const GitCli& git) {
  std::error_code ec;
  const std::string patterns =
      fs::is_regular_file(layout.sparse_checkout, ec) ? read_file(layout.sparse_checkout) : "";
  if (!holds_line(patterns, kStoreExclusion)) return false;
  // Settings of this worktree alone, before anything changes (a worktree
  // added to a lean clone shares its settings and never entered lean
  // itself): failing halfway left the patterns without the store and its
  // entries still out of the work tree.
  own_worktree_settings(layout, git);
  std::string kept;
  std::istringstream in(patterns);
  for (std::string l; std::getline(in, l);)
    if (l != kStoreExclusion) kept.append(l).push_back('\n');
  if (kept == "/*\n") {
    git.config_set("core.sparseCheckout", "false", ConfigScope::Worktree);  // as `git sparse-checkout disable`
    git.config_unset("core.sparseCheckoutCone", ConfigScope::Worktree);       // enter_lean's
    git.config_unset(std::string(kExpectFiles), ConfigScope::Worktree);
    fs::remove(layout.sparse_checkout, ec);
  } else {
    write_file_atomic(layout.sparse_checkout, kept);
  }
  const ConfigReader own = ConfigReader::through(git, ConfigScope::Worktree);
  if (own.get(std::string(kSetIndexThreads))) {
    if (own.get(std::string(kIndexThreads)) == "true")
      git.config_unset(std::string(kIndexThreads), ConfigScope::Worktree);
    git.config_unset(std::string(kSetIndexThreads), ConfigScope::Worktree);
  }
  const fs::path exclude = layout.common_dir / "info" / "exclude";
  if (fs::is_regular_file(exclude, ec)) {
    std::string text = read_file(exclude);
    if (const auto at = text.find(kStoreIgnored); at != std::string::npos) {
      text.erase(at, kStoreIgnored.size());
      write_file_atomic(exclude, text);
    }
  }
  std::vector<std::string> skipped;
  for (const IndexEntry& e : git.index_entries({literal_pathspec(kWorkTreeStore)}))
    if (e.skip_worktree && e.stage == 0) skipped.push_back(e.path);
  git.set_skip_worktree(skipped, false);
  git.check_out_from_index(skipped);
  JPBLOB_TRACE("lean: this work tree leaves lean: git writes its " + std::to_string(skipped.size()) +
               " committed blob files back");
  return true;
}

void write_lean_template(const fs::path& dir) {
  // git's own template first (info/exclude, description, sample hooks):
  // init.templateDir replaces it rather than adding to it.
  std::error_code ec;
  const fs::path stock = "/usr/share/git-core/templates";
  fs::create_directories(dir / "info");
  if (fs::is_directory(stock, ec))
    fs::copy(stock, dir, fs::copy_options::recursive | fs::copy_options::overwrite_existing, ec);
  if (ec) throw Error("cannot copy git's template from " + stock.string() + ": " + ec.message());
  write_file_atomic(dir / "config",
                    "[core]\n\tsparseCheckout = true\n\tsparseCheckoutCone = false\n"
                    "[sparse]\n\texpectFilesOutsideOfPatterns = true\n[index]\n\tthreads = true\n"
                    "[jpblob]\n\tleanSetIndexThreads = true\n");
  write_file_atomic(dir / "info" / "sparse-checkout", kLeanPatterns);
  add_store_ignored(dir / "info" / "exclude");
}

}  // namespace jpblob
