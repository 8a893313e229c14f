#include "core/maintenance/live_set.hpp"

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/index_file.hpp"
#include "core/base/parallel.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

struct Source {
  const SafeDir* base;  // a work tree document below `base` at `file`, or
  fs::path file;
  DocumentRef ref;      // ref.id: a staged or pending version's object id
};

// The staged versions of documents in the index git uses in `worktree`;
// `prefix` names that worktree in messages.
void add_staged(const fs::path& worktree, const std::string& prefix, std::vector<Source>& out) {
  for (const IndexEntry& e : GitCli(worktree).index_entries(document_pathspecs())) {
    if (!e.mode.starts_with("100")) continue;  // a symlink or a submodule: no content of ours
    out.push_back(
        {nullptr, {}, {prefix + e.path + " (staged)", document_kind(e.path), DocumentOrigin::Index, e.id, e.path}});
  }
}

// `prefix` names the work tree in messages ("" for this one).
void add_files(const SafeDir& base, const fs::path& storage, const std::string& prefix, std::vector<Source>& out,
               std::vector<fs::path>* temporaries = nullptr) {
  for (const auto& f : list_documents(base, storage, temporaries))
    out.push_back({&base, f, {prefix + f.string(), document_kind(f.string()), DocumentOrigin::WorkTree, {}, f.string()}});
}

// The documents in commits git can give back (stash entries, operations
// in progress), each distinct version once.
void add_pending(const GitCli& git, const std::vector<std::string>& commits, DocumentOrigin origin,
                 std::unordered_set<std::string>& seen, std::vector<Source>& out) {
  for (const std::string& commit : commits) {
    for (const TreeEntry& e : git.tree_entries(commit, document_roots())) {
      const auto kind = document_kind_at(e.path);
      if (!kind || !e.mode.starts_with("100") || !seen.insert(e.id).second) continue;
      out.push_back(
          {nullptr, {}, {"commit " + commit.substr(0, 12) + ":" + e.path, *kind, origin, e.id, e.path}});
    }
  }
}

// Leaves out of `sources` this work tree's documents that are what the
// index staged (for_each_document's `skip_unchanged`). The index is read
// after git listed it: a file counts only where both reads give the same
// id, so a `git add` in between leaves it in. `staged_range`: where in
// `sources` this work tree's staged versions are.
void drop_unchanged(const Workspace& ws, const GitCli& git, std::vector<Source>& sources,
                    std::pair<std::size_t, std::size_t> staged_range) {
  const auto index = git.index_path();
  if (!index) return;
  const auto snapshot = read_index_snapshot(*index, git.object_format());
  if (!snapshot) return;  // a split or sparse index: every file is read
  std::unordered_map<std::string, const std::string*> staged;  // this work tree's staged ids
  for (std::size_t i = staged_range.first; i < staged_range.second; ++i)
    staged.emplace(sources[i].ref.path, &sources[i].ref.id);
  std::vector<char> drop(sources.size(), 0);
  parallel_for(
      sources.size(),
      [&](std::size_t i) {
        const Source& s = sources[i];
        if (s.ref.origin != DocumentOrigin::WorkTree || s.base != ws.base()) return;
        const auto entry = snapshot->files.find(s.ref.path);
        const auto id = staged.find(s.ref.path);
        drop[i] = entry != snapshot->files.end() && id != staged.end() && *id->second == entry->second.id &&
                  unchanged_since_indexed(*snapshot, entry->second, ws.top() / s.file);
      },
      kDiskWaiters);
  std::vector<Source> kept;
  kept.reserve(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i)
    if (!drop[i]) kept.push_back(std::move(sources[i]));
  sources = std::move(kept);
}
// for_each_document's progress: conversations, not the versions read.
// Versions of one path (a work-tree file, its staged version, a stash
// entry's) are one conversation, finished when its last version is.
class ConversationCount {
 public:
  explicit ConversationCount(const std::vector<Source>& sources) : of_(sources.size()) {
    std::unordered_map<std::string_view, std::size_t> numbers;
    for (std::size_t i = 0; i < sources.size(); ++i)
      of_[i] = numbers.emplace(sources[i].ref.path, numbers.size()).first->second;
    left_ = std::vector<std::atomic<std::size_t>>(numbers.size());
    for (std::size_t n : of_) left_[n].fetch_add(1, std::memory_order_relaxed);
  }
  std::size_t total() const { return left_.size(); }
  // Counts sources[i] read; the conversations finished so far when it was
  // its conversation's last version, else 0.
  std::size_t read(std::size_t i) { return left_[of_[i]].fetch_sub(1) == 1 ? ++finished_ : 0; }

 private:
  std::vector<std::size_t> of_;  // each source's conversation
  std::vector<std::atomic<std::size_t>> left_;  // versions not read yet, by conversation
  std::atomic<std::size_t> finished_{0};
};

}  // namespace

void for_each_document(const Workspace& ws, const DocumentFn& fn, const Progress& progress,
                       std::vector<fs::path>* temporaries, bool skip_unchanged, DocumentHomes homes) {
  std::vector<Source> sources;
  std::vector<std::unique_ptr<SafeDir>> others;  // other worktrees' tops, kept open for the reads
  if (ws.base()) add_files(*ws.base(), ws.storage(), "", sources, temporaries);
  if (ws.in_work_tree()) {
    const bool versions = homes == DocumentHomes::All;
    const fs::path top = ws.top();
    const GitCli git(top);
    std::unordered_set<std::string> seen;  // pending document versions
    const std::size_t staged_from = sources.size();
    if (versions) add_staged(top, "", sources);
    const std::pair staged_here(staged_from, sources.size());
    if (versions) {
      add_pending(git, git.stash_commits(), DocumentOrigin::Stashed, seen, sources);
      add_pending(git, git.autostash_commits(), DocumentOrigin::Stashed, seen, sources);
      add_pending(git, git.in_progress_commits(), DocumentOrigin::Pending, seen, sources);
    }
    for (const fs::path& wt : git.worktrees()) {
      std::error_code ec;
      if (fs::equivalent(wt, top, ec) || !fs::exists(wt, ec)) continue;
      others.push_back(std::make_unique<SafeDir>(SafeDir::open(wt)));
      add_files(*others.back(), kStorageFolder, (wt / "").string(), sources);
      if (!versions) continue;
      add_staged(wt, (wt / "").string(), sources);
      add_pending(git, GitCli(wt).autostash_commits(), DocumentOrigin::Stashed, seen, sources);
      add_pending(git, GitCli(wt).in_progress_commits(), DocumentOrigin::Pending, seen, sources);
    }
    if (skip_unchanged && versions && ws.base()) drop_unchanged(ws, git, sources, staged_here);
  }
  ConversationCount conversations(sources);
  parallel_for(sources.size(), [&](std::size_t i) {
    const Source& s = sources[i];
    std::string text;
    if (s.ref.origin != DocumentOrigin::WorkTree) {
      auto content = ws.repo()->read_object(s.ref.id);
      if (!content) throw Error(s.ref.what + " is missing from git's objects");
      text = std::move(*content);
    } else {
      auto content = s.base->read(s.file);
      if (!content) throw Error(s.ref.what + " was removed while it was being read");
      text = std::move(*content);
    }
    fn(s.ref, text);
    if (const std::size_t done = conversations.read(i); done && progress)
      progress("Reading conversations", done, conversations.total());
  });
}

std::string read_as(const std::string& id, DocumentKind kind) {
  return id + (kind == DocumentKind::Session ? ":session" : ":conversation");
}

LiveSet build_live_set(const Workspace& ws, const Progress& progress) {
  LiveSet live;
  std::mutex mutex;
  try {
    for_each_document(
        ws,
        [&](const DocumentRef& doc, const std::string& text) {
          // Every payload counts whatever jpblob.minSize says: gc keeps
          // anything it cannot prove unreferenced.
          const DocumentNeeds needs = document_needs(doc.kind, text, 0, form_of(ws, doc));
          if (needs.unreadable) throw Error(doc.what + " is " + *needs.unreadable);
          std::lock_guard lock(mutex);
          for (const auto& r : needs.references) {
            live.digests.insert(r.digest);
            live.referenced.insert(r.digest);
          }
          for (const auto& p : needs.inline_payloads) live.digests.insert(p.digest);
          live.digests.insert(needs.in_literals.begin(), needs.in_literals.end());
          if (doc.origin == DocumentOrigin::Stashed) {
            live.stashed.insert(needs.in_literals.begin(), needs.in_literals.end());
            for (const auto& r : needs.references) live.stashed.insert(r.digest);
            for (const auto& p : needs.inline_payloads) live.stashed.insert(p.digest);
          }
          ++live.documents;
          if (doc.origin == DocumentOrigin::WorkTree || doc.origin == DocumentOrigin::Index)
            live.document_paths.insert(doc.path);
          if (!doc.id.empty()) live.versions.insert(read_as(doc.id, doc.kind));
        },
        progress, &live.temporaries, /*skip_unchanged=*/true);
  } catch (const Error& e) {
    throw Error(std::string("cannot build the live set: ") + e.what());
  }
  return live;
}

}  // namespace jpblob
