#include "pre_commit.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/base/parallel.hpp"
#include "core/base/trace.hpp"
#include "core/documents/document.hpp"
#include "core/git/git_cli.hpp"
#include "core/lean/commit_blobs.hpp"
#include "core/lean/needs_log.hpp"
#include "core/store/agent_stores.hpp"
#include "core/store/blob_store.hpp"
#include "core/workspace/workspace.hpp"
#include "hooks/staged_documents.hpp"
#include "hooks/store_changes.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

// The ways back to a blob file, for messages.
// The mend of a missing or corrupt blob, the same for each: said once.
const std::string kHowToRestore =
    "run `git jpblob repair`, which writes each blob named again from any good copy in git's objects, in a "
    "document that still holds the content inline or in oh-my-pi's blob store; or restore the blob file (git checkout <commit> -- "
    "<its path>), or store the content itself with `git jpblob store <file>`";

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
      if (is_store_path(c.path)) {
        judge_store_change(*ws_.repo(), ws_.store().options().max_blob_size, c, store_, report_.problems);
      } else if (c.status != 'D' && c.new_mode == "120000") {
        // A link committed among the documents would have every clone
        // refuse it (docs/FORMAT.md, "The repository is untrusted").
        problem(ProblemKind::SymbolicLink, "refusing to commit " + c.path + ": it is a symbolic link, and "
                "git-jpblob never follows links inside a repository; unstage it: git rm --cached " + c.path);
      } else if (c.status != 'D' && (c.new_mode == "100644" || c.new_mode == "100755")) {
        documents_.push_back(c);  // a conversation or a session (document_pathspecs)
      }
    }
    keep_filtered_documents();
    check_documents();
    check_unchanged_documents();
    check_missing();
    if (report_.problems.empty()) {
      stage_blobs();
      room().after_staging({to_stage_, store_.staged_paths, out_of_tree_});
      remove_needs_logs(needs_logs_);
    }
    if (trace_enabled()) trace_decisions();
    return report_;
  }

 private:
  void problem(ProblemKind kind, std::string line, std::string mend = {}) {
    report_.problems.push_back({kind, std::move(line), std::move(mend)});
  }

  // A blob this commit deletes may still be referenced by a document it
  // leaves unchanged (`git rm --cached -r .jp/blobs`): such a commit would
  // fail every clone's checkout. Those documents are read only when a blob
  // is deleted, which is rare; each reference is then checked as a changed
  // document's is (staged again from a sound file, else refused).
  void check_unchanged_documents() {
    if (store_.deleted.empty()) return;
    std::set<std::string> changed;
    for (const RawChange& c : documents_) changed.insert(c.path);
    for (const IndexEntry& e : git_->index_entries(document_pathspecs())) {
      if (e.stage != 0 || changed.count(e.path) || (e.mode != "100644" && e.mode != "100755")) continue;
      const auto text = ws_.repo()->read_object(e.id);
      if (!text) continue;
      for (const auto& ref : document_needs(document_kind(e.path), *text, 0, InputForm::Committed).references)
        if (store_.deleted.count(ref.digest) && referenced_.emplace(ref.digest).second) check_blob(e.path, ref);
    }
  }

  // A document no attribute routes to the filter is a plain file, kept as
  // it is: a repository that left git-jpblob (`git jpblob export`) or never
  // adopted it commits its conversations inline, and a second clean here
  // would move their payloads out behind the team's back. One `git
  // check-attr`, reading the attributes as the filter does.
  void keep_filtered_documents() {
    if (documents_.empty()) return;
    std::vector<std::string> paths;
    for (const RawChange& c : documents_) paths.push_back(c.path);
    const auto filter_of = git_->filters_of(paths);
    std::erase_if(documents_, [&](const RawChange& c) {
      const auto f = filter_of.find(c.path);
      return f == filter_of.end() || f->second != "jpblob";
    });
  }

  // What each document needs is judged in order, so the messages and the
  // staging are the same whatever the threads that read them did.
  void check_documents() {
    // What the filter recorded of its outputs (core/lean/needs_log):
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
        problem(ProblemKind::MissingObject,
                ws_.repo()->has_object(c.new_id)
                    ? "the staged " + c.path + " is not a file's content (its object " + c.new_id +
                          " is a tree or a commit); unstage it: git rm --cached " + c.path
                    : "the staged " + c.path + " is missing from git's objects");
        continue;
      }
      if (reads[i].replaced > 0) restage(c.path, reads[i].cleaned);
      if (trace_enabled())
        traced_[c.path].read = std::to_string(reads[i].references.size()) + " references (" +
                               (reads[i].recorded ? "the filter's record"
                                : reads[i].replaced ? "cleaned again: " + std::to_string(reads[i].replaced) +
                                                          " payloads stored"
                                                    : "read from git") + ")";
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
    if (auto staged = store_.staged.find(path); staged != store_.staged.end()) {
      note_found(conversation, verify(conversation, ref, staged->second, path + " (index)", path), "staged by hand");
      return;
    }
    const std::string file = top_str_ + path;
    struct stat st {};
    if (::lstat(file.c_str(), &st) != 0) {
      // Perhaps staged or kept: the room is asked about all of them at once.
      missing_.push_back({conversation, ref});
      wanted_.push_back({ref.digest, ref.size, path});
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      note_found(conversation, false, "");
      problem(ProblemKind::NotAFile,
              "blob " + ref.digest.hex() + " referenced by " + conversation + " is not a regular file: " + path);
      return;
    }
    std::string raw;
    try {
      raw = read_file(file, ws_.store().options().max_file_size());
    } catch (const Error& err) {
      note_found(conversation, false, "");
      problem(ProblemKind::CorruptBlob, std::string(err.what()));
      return;
    }
    // Content that matches its name is the one right content for this path,
    // so a verified file may be staged whether or not it is tracked; one
    // that does not match refuses the commit, tracked or not.
    const bool sound = verify(conversation, ref, raw, path, path);
    if (sound) to_stage_.push_back(path);
    note_found(conversation, sound, "the work tree's file");
  }

  // A problem names the ways back to `restorable`'s blob file, if given.
  bool verify(const std::string& conversation, const BlobUse& ref, std::string_view raw,
              const std::string& what, const std::string& restorable) {
    try {
      jpblob::check_blob(raw, ref.digest, ref.size, ws_.store().options().max_blob_size, what);
      return true;
    } catch (const Error& err) {
      problem(ProblemKind::CorruptBlob, std::string(err.what()) + " (referenced by " + conversation + ")",
              restorable.empty() ? "" : kHowToRestore);
      return false;
    }
  }

  // The lean room (core/lean/commit_blobs) answers where the blobs the
  // work tree has no file for are; the hook checks what it found.
  CommitBlobs room() const {
    return CommitBlobs(ws_.lean_parts(), ws_.new_blobs(), ws_.stages_from_git_folder(), *git_, extra_index_, index_file());
  }

  // Referenced blobs absent from the work tree pass only when a copy git
  // or the git folder holds is sound: a kept copy, the index, another
  // index.
  void check_missing() {
    if (wanted_.empty()) return;
    std::vector<BlobCopy> found = room().locate(wanted_, store_.paths);
    take_from_agent_stores(found);
    for (std::size_t i = 0; i < wanted_.size(); ++i) {
      const auto& [conversation, ref] = missing_[i];
      const std::string& path = wanted_[i].path;
      const BlobCopy& copy = found[i];
      const std::string blob = "blob " + ref.digest.hex() + " referenced by " + conversation;
      const std::size_t problems = report_.problems.size();
      switch (copy.is) {
        case BlobCopy::Is::Nowhere:
          problem(ProblemKind::MissingBlob, blob + " is missing: " + path + not_in_agent_stores(i), kHowToRestore);
          break;
        case BlobCopy::Is::Unusable:
          problem(ProblemKind::CorruptBlob, copy.detail + " (referenced by " + conversation + ")", kHowToRestore);
          break;
        case BlobCopy::Is::MissingObject:
          problem(ProblemKind::MissingObject, blob + " is staged but missing from git's objects");
          break;
        case BlobCopy::Is::Staged:
          if (copy.check) verify(conversation, ref, *copy.check, path + " " + copy.detail, "");
          break;
        case BlobCopy::Is::Restored:
          to_stage_.push_back(path);
          if (!from_agents_.count(i)) ++report_.restored;  // else written just now, not gone
          break;
        case BlobCopy::Is::OutOfTree:
          if (!copy.check || verify(conversation, ref, *copy.check, path + " " + copy.detail, ""))
            out_of_tree_.push_back(copy.entry);
          break;
      }
      note_found(conversation, report_.problems.size() == problems,
                 from_agents_.count(i) ? "oh-my-pi's blob store" : where_found(copy));
    }
  }

  // A blob no copy here holds may be in an agent's own store: oh-my-pi
  // writes a session's images as blob:sha256: references, with the bytes
  // in its store (core/store/agent_stores). A sound copy there is stored
  // as clean would have stored it, then looked for again, so such a
  // session commits with no extra command. They are read a few at once
  // and stored a batch at a time (put_all, a few syncs a batch): with a
  // put() and its syncs for each, a session of 2,000 images took 24 s to
  // commit, 1.5 s so.
  void take_from_agent_stores(std::vector<BlobCopy>& found) {
    std::vector<std::size_t> nowhere;
    for (std::size_t i = 0; i < wanted_.size(); ++i)
      if (found[i].is == BlobCopy::Is::Nowhere) nowhere.push_back(i);
    if (nowhere.empty()) return;
    agents_ = AgentBlobStores::from_environment();
    std::vector<std::size_t> at;   // of wanted_, those taken
    std::vector<std::string> batch;  // their bytes not yet stored
    std::size_t batch_bytes = 0;
    const auto store_batch = [&] {
      ws_.new_blobs().put_all(std::vector<std::string_view>(batch.begin(), batch.end()));
      batch.clear();
      batch_bytes = 0;
    };
    for (std::size_t start = 0; start < nowhere.size(); start += kDiskWaiters) {
      const std::size_t count = std::min<std::size_t>(kDiskWaiters, nowhere.size() - start);
      std::vector<std::optional<std::string>> bytes(count);
      std::vector<std::string> why(count);
      parallel_for(count, [&](std::size_t k) {
        const WantedBlob& want = wanted_[nowhere[start + k]];
        bytes[k] = agents_->fetch(want.digest, ws_.store().options().max_blob_size, &why[k]);
        if (bytes[k] && want.size && *want.size != bytes[k]->size()) {
          why[k] = "oh-my-pi's copy of it holds " + std::to_string(bytes[k]->size()) +
                   " bytes where the reference says " + std::to_string(*want.size);
          bytes[k].reset();
        }
      }, kDiskWaiters);
      for (std::size_t k = 0; k < count; ++k) {
        const std::size_t i = nowhere[start + k];
        if (!bytes[k]) {
          if (!why[k].empty()) agent_problems_[i] = why[k];
          continue;
        }
        batch_bytes += bytes[k]->size();
        batch.push_back(std::move(*bytes[k]));
        at.push_back(i);
      }
      if (batch_bytes >= kAgentBatchBytes) store_batch();
    }
    if (!batch.empty()) store_batch();
    if (at.empty()) return;
    ws_.new_blobs().finish();  // outside a lean tree, links the kept copies
    std::vector<WantedBlob> again;
    for (const std::size_t i : at) again.push_back(wanted_[i]);
    const std::vector<BlobCopy> relocated = room().locate(again, store_.paths);
    for (std::size_t k = 0; k < at.size(); ++k) {
      found[at[k]] = relocated[k];
      from_agents_.insert(at[k]);
    }
  }
  // How many bytes read from an agent's store wait to be stored at most
  // (beyond the last few read): a session's images, not its whole history.
  static constexpr std::size_t kAgentBatchBytes = std::size_t{64} << 20;

  // What the missing blob `i` message adds: where else was looked.
  std::string not_in_agent_stores(std::size_t i) const {
    if (!agents_) return "";
    const auto problem = agent_problems_.find(i);
    return " (not in oh-my-pi's blob store either: " + agents_->describe() + ")" +
           (problem == agent_problems_.end() ? "" : "; " + problem->second);
  }

  // Where check_missing found a copy, for the trace.
  static std::string where_found(const BlobCopy& copy) {
    switch (copy.is) {
      case BlobCopy::Is::Staged: return "already staged";
      case BlobCopy::Is::Restored: return "its kept copy, written back";
      case BlobCopy::Is::OutOfTree:
        return copy.detail.empty() ? "its kept copy" : copy.detail.substr(1, copy.detail.size() - 2);
      default: return "";
    }
  }

  // What the trace says of each document (GIT_TRACE): how the hook read
  // it, and where each blob it is the first to reference was found
  // ("" for one refused: missing, corrupt, not a file).
  struct Traced {
    std::string read;
    std::map<std::string, std::size_t> blobs;
  };
  void note_found(const std::string& conversation, bool sound, const std::string& where) {
    if (trace_enabled()) ++traced_[conversation].blobs[sound ? where : ""];
  }

  void trace_decisions() const {
    for (const auto& [path, t] : traced_) {
      std::string line = "pre-commit: " + path + ": " + (t.read.empty() ? "unchanged" : t.read);
      for (const auto& [where, n] : t.blobs)
        line += "; " + std::to_string(n) + (where.empty() ? " refused" : " from " + where);
      JPBLOB_TRACE(line);
    }
    JPBLOB_TRACE("pre-commit: " + std::to_string(report_.conversations) + " documents, " +
                 std::to_string(report_.blobs_staged) + " blobs staged (" + std::to_string(report_.restored) +
                 " written back from kept copies), " + std::to_string(report_.restaged) + " cleaned again: " +
                 (report_.problems.empty() ? "commit allowed"
                                           : "commit refused (" + std::to_string(report_.problems.size()) +
                                                 " problems)"));
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

  Workspace ws_;
  fs::path top_;
  std::string top_str_;  // top_ and a slash
  std::optional<GitCli> git_;  // in the work tree, with the index git handed the hook
  std::optional<fs::path> extra_index_;
  std::vector<RawChange> documents_;
  StoreChanges store_;  // what the commit does to the store's own files
  std::unordered_set<Digest, DigestHash> referenced_;
  std::vector<std::string> to_stage_;
  std::vector<GitCli::OutOfTree> out_of_tree_;  // a lean tree's new blobs, staged from the git folder
  std::vector<std::pair<std::string, BlobUse>> missing_;  // conversation and reference of each of wanted_
  std::vector<WantedBlob> wanted_;  // referenced blobs with no work-tree file
  std::optional<AgentBlobStores> agents_;  // read on the first blob found nowhere else
  std::set<std::size_t> from_agents_;      // those of wanted_ taken from an agent's store
  std::map<std::size_t, std::string> agent_problems_;  // why an agent's copy was passed over
  std::vector<fs::path> needs_logs_;  // read by check_documents
  PreCommitReport report_;
  std::map<std::string, Traced> traced_;  // filled only while tracing
};

}  // namespace

PreCommitReport run_pre_commit_hook(const fs::path& cwd) { return Hook(cwd).run(); }

}  // namespace jpblob
