#include "pre_commit.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/store/blob_store.hpp"
#include "core/documents/document.hpp"
#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/base/parallel.hpp"
#include "core/git/git_cli.hpp"
#include "core/workspace/kept.hpp"
#include "core/workspace/lean.hpp"
#include "hooks/staged_documents.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

// The ways back to a blob file, for messages.
std::string how_to_restore(const std::string& path) {
  return "run `git jpblob repair`, which writes it again from any good copy in git's objects or in a "
         "conversation that still holds the content inline; or restore the blob file (git checkout <commit> -- " +
         path + "), or store the content itself with `git jpblob store <file>` (an agent's own blob file, say)";
}

class Hook {
 public:
  explicit Hook(const fs::path& cwd) : ws_(Workspace::open(cwd)) {
    if (!ws_.in_work_tree()) throw Error("pre-commit must run in a repository with a work tree");
    report_.warnings = ws_.settings().warnings;
    top_ = ws_.top();
    top_str_ = top_.string() + "/";
    git_.emplace(top_);
    // `git commit <paths>` commits a temporary index, then the real one
    // (held as index.lock): both must get the same staging.
    if (const char* file = std::getenv("GIT_INDEX_FILE");
        file && fs::path(file).filename().string().starts_with("next-index-")) {
      const fs::path real = ws_.repo()->gitdir() / "index.lock";
      if (fs::exists(real)) extra_index_ = real;
    }
  }

  PreCommitReport run() {
    // Blobs, and every document: those under .jp, and any file
    // .gitattributes routes to the filter (sessions kept elsewhere).
    std::vector<std::string> specs = {literal_pathspec(kWorkTreeStore)};
    specs.insert(specs.end(), document_pathspecs().begin(), document_pathspecs().end());
    for (const RawChange& c : git_->staged_changes(specs)) {
      if (is_store_path(c.path)) store_changes_.insert(c.path);
      if (c.status == 'D') {
        if (is_store_path(c.path))
          if (auto digest = digest_of_tracked_path(c.path)) deleted_blobs_.insert(*digest);
        continue;
      }
      if (c.new_mode == "120000") {
        // A link committed into the store or among the documents would
        // have every clone refuse it (docs/FORMAT.md, "The repository is
        // untrusted").
        problem("refusing to commit " + c.path + ": it is a symbolic link, and git-jpblob never follows links "
                "inside a repository; unstage it: git rm --cached " + c.path);
        continue;
      }
      if (is_store_path(c.path)) {
        if (c.status == 'A') verify_added_blob(c);
        else
          problem(c.path + " is a tracked blob whose content is being changed; a blob never changes: "
                           "git checkout HEAD -- " + c.path);
      } else if (c.new_mode == "100644" || c.new_mode == "100755") {
        documents_.push_back(c);  // a conversation or a session (document_pathspecs)
      }
    }
    check_documents();
    check_unchanged_documents();
    check_missing();
    if (report_.problems.empty()) {
      stage_blobs();
      drop_kept();  // before the files leave: a copy that is one of them goes unasked
      leave_work_tree();
      remove_needs_logs(needs_logs_);
    }
    return report_;
  }

 private:
  struct Missing {
    std::string conversation;
    BlobUse ref;
    std::string path;
  };

  void problem(const std::string& line) { report_.problems.push_back(line); }

  // A blob file staged by hand (git add .jp/blobs) must still be what its
  // name says.
  void verify_added_blob(const RawChange& c) {
    const auto digest = digest_of_tracked_path(c.path);
    if (!digest) return;  // not a blob file: not ours to judge
    auto raw = ws_.repo()->read_object(c.new_id);
    if (!raw) return;
    try {
      jpblob::check_blob(*raw, *digest, std::nullopt, ws_.store().options().max_blob_size, c.path + " (index)");
      staged_blobs_[c.path] = std::move(*raw);
    } catch (const Error& err) {
      problem(std::string(err.what()) + "; unstage it: git rm --cached " + c.path);
    }
  }

  // A blob this commit deletes may still be referenced by a document it
  // leaves unchanged (`git rm --cached -r .jp/blobs`): such a commit would
  // fail every clone's checkout. Those documents are read only when a blob
  // is deleted, which is rare; each reference is then checked as a changed
  // document's is (staged again from a sound file, else refused).
  void check_unchanged_documents() {
    if (deleted_blobs_.empty()) return;
    std::set<std::string> changed;
    for (const RawChange& c : documents_) changed.insert(c.path);
    for (const IndexEntry& e : git_->index_entries(document_pathspecs())) {
      if (e.stage != 0 || changed.count(e.path) || (e.mode != "100644" && e.mode != "100755")) continue;
      const auto text = ws_.repo()->read_object(e.id);
      if (!text) continue;
      for (const auto& ref : document_needs(document_kind(e.path), *text, 0, InputForm::Committed).references)
        if (deleted_blobs_.count(ref.digest) && referenced_.emplace(ref.digest).second) check_blob(e.path, ref);
    }
  }

  // What each document needs is judged in order, so the messages and the
  // staging are the same whatever the threads that read them did.
  void check_documents() {
    // What the filter recorded of its outputs (core/workspace/needs_log):
    // the logs go once the commit has passed this hook.
    std::unordered_map<std::string, RecordedNeeds> recorded;
    if (!documents_.empty() && ws_.repo())
      recorded = read_needs_logs(needs_log_folder(ws_.repo()->commondir()), needs_logs_);
    const std::vector<DocumentRead> reads = read_staged_documents(ws_, documents_, recorded);
    for (std::size_t i = 0; i < documents_.size(); ++i) {
      const RawChange& c = documents_[i];
      ++report_.conversations;
      if (reads[i].missing) {
        // A tree or a commit put in a file's place (update-index
        // --cacheinfo) is there, but not a file's content.
        problem(ws_.repo()->has_object(c.new_id)
                    ? "the staged " + c.path + " is not a file's content (its object " + c.new_id +
                          " is a tree or a commit); unstage it: git rm --cached " + c.path
                    : "the staged " + c.path + " is missing from git's objects");
        continue;
      }
      if (reads[i].replaced > 0) restage(c.path, reads[i].cleaned);
      // Every reference, wherever it stands, needs its blob in the commit.
      for (const auto& ref : reads[i].references)
        if (referenced_.emplace(ref.digest).second) check_blob(c.path, ref);
    }
  }

  // The cleaned conversation replaces the staged one, keeping the entry's
  // stat data (the work tree file is unchanged), so git status stays clean.
  // Rare (the filter was not installed), so libgit2's slow index is fine.
  void restage(const std::string& path, const std::string& cleaned) {
    const std::string id = ws_.repo()->write_blob(cleaned);
    ws_.repo()->set_index_entry_id(index_file(), path, id);
    if (extra_index_) ws_.repo()->set_index_entry_id(*extra_index_, path, id);
    ++report_.restaged;
  }

  fs::path index_file() const {
    if (const char* file = std::getenv("GIT_INDEX_FILE")) return fs::absolute(top_ / file);
    return ws_.repo()->gitdir() / "index";
  }

  void check_blob(const std::string& conversation, const BlobUse& ref) {
    // Once a blob: a lean tree's commit of everything added asks 114,000.
    const std::string path = tracked_blob_path(ref.digest);
    if (auto staged = staged_blobs_.find(path); staged != staged_blobs_.end()) {
      verify(conversation, ref, staged->second, path + " (index)", path);
      return;
    }
    const std::string file = top_str_ + path;
    struct stat st {};
    if (::lstat(file.c_str(), &st) != 0) {
      missing_.push_back({conversation, ref, path});  // perhaps staged: asked in one go later
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      problem("blob " + ref.digest.hex() + " referenced by " + conversation + " is not a regular file: " + path);
      return;
    }
    std::string raw;
    try {
      raw = read_file(file, ws_.store().options().max_file_size());
    } catch (const Error& err) {
      problem(std::string(err.what()));
      return;
    }
    // Content that matches its name is the one right content for this path,
    // so a verified file may be staged whether or not it is tracked; one
    // that does not match refuses the commit, tracked or not.
    if (verify(conversation, ref, raw, path, path)) to_stage_.push_back(path);
  }

  // A problem names the ways back to `restorable`'s blob file, if given.
  bool verify(const std::string& conversation, const BlobUse& ref, std::string_view raw,
              const std::string& what, const std::string& restorable) {
    try {
      jpblob::check_blob(raw, ref.digest, ref.size, ws_.store().options().max_blob_size, what);
      return true;
    } catch (const Error& err) {
      problem(std::string(err.what()) + " (referenced by " + conversation + ")" +
              (restorable.empty() ? "" : "; " + how_to_restore(restorable)));
      return false;
    }
  }

  // Referenced blobs absent from the work tree pass only when the index
  // already holds them (a sparse checkout, a file deleted after staging).
  void check_missing() {
    if (missing_.empty()) return;
    // Kept copies are read and checked on several threads (thousands after
    // a large add: the reads wait on the disk), then taken in order. In a
    // lean tree every blob is missing, and a new one's home is its kept
    // copy: those are read first, and the index is asked only about the
    // rest (none, when a commit only adds), since asking reads the whole
    // index (a fifth of a second at 100,000 blobs). Elsewhere a kept copy
    // would write a work-tree file, so the index is asked first.
    std::vector<KeptCopy> kept(missing_.size());
    const auto read_kept = [&](const auto& wanted) {
      parallel_for(
          missing_.size(), [&](std::size_t i) { if (wanted(i)) kept[i] = read_kept_copy(missing_[i]); },
          kDiskWaiters);
    };
    const bool kept_first = ws_.lean();
    if (kept_first) read_kept([](std::size_t) { return true; });
    // A store path this commit does not change (the diff above lists
    // every one it does) has in the index what HEAD's tree has: looked up
    // there, in trees libgit2 caches, instead of in the whole index.
    std::unordered_map<std::string, std::string> staged;
    std::vector<std::string> paths;
    for (std::size_t i = 0; i < missing_.size(); ++i) {
      if (kept_first && kept[i].is == KeptCopy::Is::Sound) continue;
      const std::string& path = missing_[i].path;
      if (store_changes_.count(path)) paths.push_back(path);
      else if (auto id = ws_.repo()->blob_id_at("HEAD", path)) staged.emplace(path, std::move(*id));
    }
    if (!paths.empty()) staged.merge(git_->index_ids(paths));
    if (!kept_first) read_kept([&](std::size_t i) { return !staged.count(missing_[i].path); });
    std::vector<const Missing*> nowhere;
    for (std::size_t i = 0; i < missing_.size(); ++i) {
      const Missing& m = missing_[i];
      const auto id = staged.find(m.path);
      if ((id == staged.end() || kept[i].is == KeptCopy::Is::Sound) && take_kept_copy(m, kept[i])) continue;
      if (id == staged.end()) {
        nowhere.push_back(&m);
        continue;
      }
      auto raw = ws_.repo()->read_object(id->second);
      if (!raw) {
        problem("blob " + m.ref.digest.hex() + " referenced by " + m.conversation +
                " is staged but missing from git's objects");
        continue;
      }
      // A store git-lfs tracks stages pointers: git-lfs holds the bytes
      // and checks them; a copy here, when there is one, is checked instead.
      if (is_lfs_pointer(*raw)) {
        if (const auto copy = ws_.kept() ? ws_.kept()->read_raw(m.ref.digest) : std::nullopt)
          verify(m.conversation, m.ref, *copy, m.path + " (kept copy)", "");
        continue;
      }
      verify(m.conversation, m.ref, *raw, m.path + " (index)", "");
    }
    from_the_real_index(nowhere);
    from_other_worktrees(nowhere);
    for (const Missing* m : nowhere)
      problem("blob " + m->ref.digest.hex() + " referenced by " + m->conversation + " is missing: " + m->path +
              "; " + how_to_restore(m->path));
  }

  // A lean tree's new blob whose copy in the git folder (shared by the
  // worktrees) went when another worktree's commit staged it: that
  // worktree's index gives it back. One git call a worktree, and only when
  // a blob is missing. Those found leave `nowhere`.
  void from_other_worktrees(std::vector<const Missing*>& nowhere) {
    if (nowhere.empty() || !ws_.lean()) return;
    std::vector<fs::path> others;
    try {
      others = git_->worktrees();
    } catch (const Error&) {
      return;  // the problem as usual
    }
    std::error_code ec;
    for (const fs::path& wt : others) {
      if (nowhere.empty()) break;
      if (fs::equivalent(wt, top_, ec)) continue;
      take_from_index(GitCli::in_worktree(wt), "index of " + wt.string(), nowhere);
    }
  }

  // `git commit <paths>` commits a temporary index made from HEAD, and
  // the hook reads that one: a blob an earlier commit's hook staged into
  // the real index (git holds it as index.lock now), whose kept copy then
  // went, is not in it when that commit was refused after the hook (a
  // commit-msg hook, an empty message). git's objects hold it.
  void from_the_real_index(std::vector<const Missing*>& nowhere) {
    if (!nowhere.empty() && extra_index_) take_from_index(git_->with_index(*extra_index_), "the index", nowhere);
  }

  // Those of `nowhere` whose path `index` holds, checked, go to be staged
  // under that id and leave `nowhere`.
  void take_from_index(const GitCli& index, const std::string& where, std::vector<const Missing*>& nowhere) {
    std::vector<std::string> paths;
    for (const Missing* m : nowhere) paths.push_back(m->path);
    std::unordered_map<std::string, std::string> held;
    try {
      held = index.index_ids(paths);
    } catch (const Error&) {
      return;  // a worktree being removed, say: the problem as usual
    }
    std::erase_if(nowhere, [&](const Missing* m) {
      const auto id = held.find(m->path);
      if (id == held.end()) return false;
      const auto raw = ws_.repo()->read_object(id->second);
      if (!raw) return false;
      if (!is_lfs_pointer(*raw) && !verify(m->conversation, m->ref, *raw, m->path + " (" + where + ")", ""))
        return true;  // said by verify
      out_of_tree_.push_back({m->path, {}, id->second});
      return true;
    });
  }

  // A blob the index lacks and the work tree has no file for. In a lean
  // work tree its home is the git folder (Workspace::new_blobs): it is
  // staged from there, never passing through the work tree. Elsewhere git
  // deleted its work-tree file before its commit (`git clean -x`, a stash)
  // or a user removed it: its kept copy (core/workspace/kept) writes the
  // file again, to be staged like any other.
  struct KeptCopy {
    enum class Is { Absent, Sound, Unusable } is = Is::Absent;
    std::string error;  // Unusable: corrupt, or a store that cannot be written
  };
  // On any thread: reads and checks the copy, and outside a lean tree
  // writes the work-tree file from it (the store is thread-safe).
  KeptCopy read_kept_copy(const Missing& m) const {
    if (!ws_.kept()) return {};
    try {
      const auto bytes = ws_.kept()->get(m.ref.digest, m.ref.size);
      if (!bytes) return {};
      if (!ws_.lean()) ws_.store().put(m.ref.digest, *bytes);
    } catch (const Error& err) {
      return {KeptCopy::Is::Unusable, err.what()};
    }
    return {KeptCopy::Is::Sound, {}};
  }

  // False when there is no copy: the blob is nowhere yet.
  bool take_kept_copy(const Missing& m, const KeptCopy& copy) {
    switch (copy.is) {
      case KeptCopy::Is::Absent:
        return false;
      case KeptCopy::Is::Unusable:
        problem(copy.error + " (referenced by " + m.conversation + "); " + how_to_restore(m.path));
        return true;
      case KeptCopy::Is::Sound:
        break;
    }
    if (ws_.lean()) {
      out_of_tree_.push_back({m.path, fs::absolute(ws_.kept()->path_of(m.ref.digest)).string(), {}});
      return true;
    }
    to_stage_.push_back(m.path);
    ++report_.restored;
    return true;
  }

  // The kept copies of the blobs this commit stages have done their job
  // once the index that stays holds them (core/workspace/kept). A plain `git commit`
  // stages into that index: a copy that is the very file just staged (a
  // link to it) goes unasked, any other in one git call. `git commit -a`
  // and `<paths>` stage into an index git may still throw away: their
  // copies go when the next commit drops the files (a lean tree), or at
  // gc. Only this commit's blobs are looked at: the hook's cost grows with
  // what is staged, not with what gc has yet to remove. None go while a
  // stash exists (kept_copies_may_go).
  void drop_kept() {
    if (!ws_.kept() || !kept_copies_may_go(ws_)) return;
    const fs::path real = ws_.repo()->gitdir() / "index";
    std::error_code ec;
    if (!fs::equivalent(index_file(), real, ec)) return;
    std::vector<Digest> ask;
    auto consider = [&](const std::string& path, bool from_file) {
      const auto digest = digest_of_tracked_path(path);
      if (!digest) return;
      struct stat file {}, copy {};
      if (::lstat(ws_.kept()->path_of(*digest).c_str(), &copy) != 0) return;  // none kept
      if (from_file && ::lstat(ws_.store().path_of(*digest).c_str(), &file) == 0 && file.st_dev == copy.st_dev &&
          file.st_ino == copy.st_ino)
        ws_.kept()->remove(ws_.kept()->entry_for(*digest), std::numeric_limits<std::time_t>::max());
      else
        ask.push_back(*digest);
    };
    for (const std::string& path : to_stage_) consider(path, true);
    for (const auto& [path, bytes] : staged_blobs_) consider(path, false);
    // Every copy in the folder one staged here from the copy itself (a
    // commit of everything added): the folder goes aside whole, and a
    // process of its own deletes it. Tried before the folder is listed
    // below: that listing stats each copy (0.6 s at 114,000).
    if (ws_.lean() && ask.empty()) {
      std::vector<Digest> from_copies;
      for (const GitCli::OutOfTree& e : out_of_tree_)
        if (!e.file.empty())
          if (const auto digest = digest_of_tracked_path(e.path)) from_copies.push_back(*digest);
      if (retire_kept_copies(ws_, from_copies)) return;
    }
    // A lean tree's kept folder holds only blobs not committed yet (few):
    // each one this index now holds goes, this commit's and any an earlier
    // `git commit -a` staged. What this hook staged from the folder itself
    // needs no question: the index holds the ids it wrote.
    std::unordered_map<std::string, std::string> staged_here;
    std::vector<Digest> held_here;
    for (const GitCli::OutOfTree& e : out_of_tree_) staged_here.emplace(e.path, e.id);
    if (ws_.lean())
      for (const StoreEntry& e : ws_.kept()->entries())
        if (e.kind == StoreEntry::Kind::Blob && e.digest)
          (staged_here.count(tracked_blob_path(*e.digest)) ? held_here : ask).push_back(*e.digest);
    std::sort(ask.begin(), ask.end());
    ask.erase(std::unique(ask.begin(), ask.end()), ask.end());
    drop_kept_copies_staged_here(ws_, held_here);
    drop_kept_copies(ws_, *git_, ask);
  }

  // One `git update-index --add` per index file: git stats and hashes the
  // files itself and writes the index at git's speed, after many new files
  // have gone to git's objects as one pack (GitCli::add_many_to_index).
  // Blobs from the git folder (a lean tree's new ones) go the same way
  // (GitCli::stage_out_of_tree).
  void stage_blobs() {
    if (to_stage_.empty() && out_of_tree_.empty()) return;
    const std::uint64_t limit = ws_.store().options().max_file_size();
    git_->add_many_to_index(to_stage_, limit);
    // The second index gets the objects the first one's staging wrote.
    out_of_tree_ = git_->stage_out_of_tree(std::move(out_of_tree_), limit);
    if (extra_index_) {
      git_->with_index(*extra_index_).add_to_index(to_stage_);
      git_->with_index(*extra_index_).stage_out_of_tree(out_of_tree_, limit);
    }
    report_.blobs_staged = to_stage_.size() + out_of_tree_.size();
  }

  // In a lean work tree (core/workspace/lean) the commit's blobs leave the work tree
  // once staged: git's objects hold them now (the index, then the commit),
  // and the skip-worktree bit keeps git from looking for their files.
  // Should the commit not happen, the index still gives them back, but only
  // the real one: `git commit -a` and `git commit <paths>` hand the hook an
  // index git throws away when the commit is refused or killed later (an
  // empty message, a commit-msg hook). There a file leaves only once the
  // real index holds its blob, so what such a commit staged stays until the
  // next commit (or checkout), which takes every store file the real index
  // holds.
  //
  // A repository that is not lean becomes lean at the first commit whose
  // index tracks blobs (SPEC §2: lean per repository, for those that hold
  // conversations), unless it keeps its store by choice (lean_refused):
  // every blob file the index holds then leaves like this commit's.
  void leave_work_tree() {
    bool entering = false;
    if (!ws_.lean()) {
      // The choice first: one config read, where listing the store's
      // index entries would cost a clone that keeps its store out every
      // commit.
      if (lean_refused(*git_) || !tracks_blobs(*git_)) return;
      const auto layout = git_->layout();
      if (!layout) return;
      enter_lean(*layout, *git_);
      entering = true;
    }
    std::set<std::string> paths(to_stage_.begin(), to_stage_.end());
    for (const auto& [path, bytes] : staged_blobs_) paths.insert(path);
    if (entering)
      for (const IndexEntry& e : git_->index_entries({literal_pathspec(kWorkTreeStore)}))
        if (!e.skip_worktree && e.stage == 0) paths.insert(e.path);
    // A lean store holds only blobs not committed yet: few files. One that
    // links outside holds none this commit staged (staging refuses it).
    if (ws_.store().usable())
      for (const StoreEntry& e : ws_.store().entries())
        if (e.kind == StoreEntry::Kind::Blob && e.digest) paths.insert(tracked_blob_path(*e.digest));
    std::vector<GitCli> indexes = {*git_};
    if (extra_index_) indexes.push_back(git_->with_index(*extra_index_));
    const fs::path real = ws_.repo()->gitdir() / "index";
    std::error_code ec;
    const bool temporary = !fs::equivalent(index_file(), real, ec);
    const GitCli keeper = git_->with_index(real);
    drop_blob_files(ws_, indexes, {paths.begin(), paths.end()}, temporary ? &keeper : nullptr);
  }

  Workspace ws_;
  fs::path top_;
  std::string top_str_;  // top_ and a slash
  std::optional<GitCli> git_;  // in the work tree, with the index git handed the hook
  std::optional<fs::path> extra_index_;
  std::vector<RawChange> documents_;
  std::map<std::string, std::string> staged_blobs_;  // verified blob files staged by hand
  std::unordered_set<Digest, DigestHash> referenced_;
  std::set<Digest> deleted_blobs_;  // blob files this commit removes
  std::set<std::string> store_changes_;  // store paths the index changes against HEAD
  std::vector<std::string> to_stage_;
  std::vector<GitCli::OutOfTree> out_of_tree_;  // a lean tree's new blobs, staged from the git folder
  std::vector<Missing> missing_;
  std::vector<fs::path> needs_logs_;  // read by check_documents
  PreCommitReport report_;
};

}  // namespace

PreCommitReport run_pre_commit_hook(const fs::path& cwd) { return Hook(cwd).run(); }

}  // namespace jpblob
