#include "core/maintenance/purge_list.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <mutex>
#include <optional>
#include <unordered_map>

#include "core/base/error.hpp"
#include "core/base/parallel.hpp"
#include "core/documents/document.hpp"
#include "core/git/git_cli.hpp"
#include "core/maintenance/live_set.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

void sort_unique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

std::string_view parent_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
}

std::string_view name_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The id of a conversation folder named "<id>" or "<id>-<slug>" (JP's
// naming), or nullopt for any other name.
std::optional<std::string> id_of_folder(std::string_view name) {
  const std::string_view id = name.substr(0, name.find('-'));
  if (!all_digits(id)) return std::nullopt;
  return std::string(id);
}

// `name` as a repository path, when it lies inside `top`: relative to
// `cwd`, '/'-separated, without a trailing '/'.
std::optional<std::string> repo_path(const fs::path& top, const fs::path& cwd, const std::string& name) {
  const fs::path rel = fs::absolute(cwd / name).lexically_normal().lexically_relative(top.lexically_normal());
  if (rel.empty() || *rel.begin() == "..") return std::nullopt;
  std::string s = rel.generic_string();
  while (s.ends_with('/') || s.ends_with("/.")) s.erase(s.find_last_of('/'));
  if (s.empty() || s == ".") return std::nullopt;
  return s;
}

// A session by its path: the file, and its artifact folder when `known`
// holds a file below it.
bool add_session(const std::string& path, const std::unordered_set<std::string>& known, PurgeTarget& t) {
  if (!known.count(path)) return false;
  t.files.push_back(path);
  const std::string folder = path.substr(0, path.size() - std::string_view(".jsonl").size());
  const std::string below = folder + "/";
  if (std::any_of(known.begin(), known.end(), [&](const std::string& p) { return p.starts_with(below); }))
    t.folders.push_back(folder);
  return true;
}

// A conversation by its folder, events.json, id or handle: every folder of
// `folders` its id has had.
bool add_conversation(const std::string& name, const std::optional<std::string>& rel,
                      const std::unordered_set<std::string>& known, const std::vector<std::string>& folders,
                      PurgeTarget& t) {
  const std::size_t before = t.folders.size();
  std::optional<std::string> id;
  if (const std::string_view handle = std::string_view(name).starts_with("jp-c") ? std::string_view(name).substr(4) : std::string_view(name);
      all_digits(handle))
    id = std::string(handle);
  if (rel) {
    std::string folder = *rel;
    if (name_of(folder) == "events.json") folder = std::string(parent_of(folder));
    if (!folder.empty() && known.count(folder + "/events.json")) {
      t.folders.push_back(folder);
      if (!id) id = id_of_folder(name_of(folder));
    }
  }
  if (id)
    for (const std::string& f : folders)
      if (id_of_folder(name_of(f)) == id) t.folders.push_back(f);
  return t.folders.size() > before;
}

}  // namespace

bool PurgeTarget::holds(std::string_view path) const {
  if (std::find(files.begin(), files.end(), path) != files.end()) return true;
  return std::any_of(folders.begin(), folders.end(), [&](const std::string& f) {
    return path.size() > f.size() && path.starts_with(f) && path[f.size()] == '/';
  });
}

PurgeTarget resolve_purge_target(const std::vector<std::string>& names, const std::unordered_set<std::string>& known,
                                 const fs::path& top, const fs::path& cwd) {
  std::vector<std::string> folders;  // every conversation folder known
  for (const std::string& p : known)
    if (document_kind_at(p) == DocumentKind::Conversation) folders.emplace_back(parent_of(p));
  sort_unique(folders);
  PurgeTarget t;
  for (const std::string& name : names) {
    const std::optional<std::string> rel = repo_path(top, cwd, name);
    const bool found = document_kind(name) == DocumentKind::Session
                           ? rel && add_session(*rel, known, t)
                           : add_conversation(name, rel, known, folders, t);
    if (found) continue;
    const std::string_view handle = std::string_view(name).starts_with("jp-c") ? std::string_view(name).substr(4) : std::string_view(name);
    const std::string where = " in any commit reachable from a ref, the index or the work tree";
    if (all_digits(handle)) throw Error("no conversation with id " + std::string(handle) + where);
    throw Error("no conversation or session '" + name + "'" + where +
                ": give its folder, its events.json, its id, or a session's .jsonl");
  }
  sort_unique(t.files);
  sort_unique(t.folders);
  return t;
}

BlobSplit split_blobs(const std::vector<DocumentBlobs>& versions, const PurgeTarget& target) {
  std::unordered_set<Digest, DigestHash> mine;
  std::unordered_map<Digest, const std::string*, DigestHash> others;  // a blob, and one other path needing it
  for (const DocumentBlobs& v : versions) {
    bool targeted = false;
    const std::string* other = nullptr;
    for (const std::string& p : v.paths) {
      if (target.holds(p)) targeted = true;
      else if (!other) other = &p;
    }
    for (const Digest& d : v.digests) {
      if (targeted) mine.insert(d);
      if (other) others.emplace(d, other);
    }
  }
  BlobSplit split;
  for (const Digest& d : mine) {
    const auto o = others.find(d);
    if (o == others.end()) split.purge.push_back(d);
    else split.shared.emplace_back(d, *o->second);
  }
  std::sort(split.purge.begin(), split.purge.end());
  std::sort(split.shared.begin(), split.shared.end());
  return split;
}

std::string filter_repo_line(std::string_view path) {
  const bool literal = path.find_first_of("\r\n") == std::string_view::npos && path.find("==>") == std::string_view::npos;
  if (literal) {
    for (const std::string_view prefix : {"#", "literal:", "glob:", "regex:"})
      if (path.starts_with(prefix)) return "literal:" + std::string(path);
    return std::string(path);
  }
  // filter-repo compiles the rest of the line as a Python bytes pattern and
  // searches each path with it. Every character that is not a letter, a
  // digit, '_', '/' or beyond ASCII is escaped, so none reads as syntax, a
  // line break is written as its escape, and an escaped '=' breaks "==>".
  std::string line = "regex:^";
  for (const char c : path) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (c == '\n') line += "\\n";
    else if (c == '\r') line += "\\r";
    else if (std::isalnum(u) || c == '_' || c == '/' || u >= 0x80) line += c;
    else line += std::string("\\") + c;
  }
  // As filter-repo reads a literal line: the path itself, or a folder of
  // that name (a folder given with its '/' matches what lies below).
  if (!path.ends_with('/')) line += "(?:/|$)";
  return line;
}

std::vector<std::string> PurgeList::lines() const {
  std::vector<std::string> out;
  for (const auto* list : {&folders, &files, &blobs})
    for (const std::string& p : *list) out.push_back(filter_repo_line(p));
  return out;
}

namespace {

// The blobs a document keeps alive, by gc's rule (core/maintenance/live_set).
std::vector<Digest> kept_alive(const DocumentNeeds& needs) {
  std::vector<Digest> out = needs.in_literals;
  for (const auto* list : {&needs.references, &needs.inline_payloads})
    for (const BlobUse& use : *list) out.push_back(use.digest);
  return out;
}

// Every file below the document roots in the commits' trees, each folder
// walked once however many commits hold it unchanged (GitRepo::blobs_below);
// git's listing of each commit where libgit2 cannot read a tree.
std::vector<TreeEntry> history_entries(const GitRepo& repo, const GitCli& git, const std::vector<std::string>& commits) {
  // The store holds no document: its 65,536 folders are not walked.
  if (auto walked = repo.blobs_below(commits, document_roots(), {std::string(kWorkTreeStore)})) return std::move(*walked);
  std::vector<TreeEntry> out;
  for (const std::string& commit : commits)
    for (TreeEntry& e : git.tree_entries(commit, document_roots()))
      if (!e.path.starts_with(std::string(kWorkTreeStore) + "/")) out.push_back(std::move(e));
  return out;
}

// The documents of the work trees, their indexes, stash entries and
// operations in progress (for_each_document), each with what it keeps
// alive. One that is not a document of its kind references nothing: the
// filter passes it through whole.
std::vector<DocumentBlobs> present_documents(const Workspace& ws, const Progress& progress) {
  std::vector<DocumentBlobs> out;
  std::mutex mutex;
  for_each_document(
      ws,
      [&](const DocumentRef& doc, const std::string& text) {
        DocumentBlobs v{{doc.path}, kept_alive(document_needs(doc.kind, text, 0, form_of(ws, doc)))};
        std::lock_guard lock(mutex);
        out.push_back(std::move(v));
      },
      progress, nullptr, /*skip_unchanged=*/true);
  return out;
}

// Appends each document version the history holds, read once however many
// paths and commits hold it.
void add_history_versions(const GitRepo& repo, const std::vector<TreeEntry>& entries,
                          std::vector<DocumentBlobs>& versions, const Progress& progress) {
  struct Pending {
    const TreeEntry* entry;
    DocumentKind kind;
    std::size_t slot;
  };
  std::vector<Pending> pending;
  std::unordered_map<std::string, std::size_t> slots;  // read_as(id, kind) → its place in `versions`
  for (const TreeEntry& e : entries) {
    const auto kind = document_kind_at(e.path);
    if (!kind || !e.mode.starts_with("100")) continue;  // a link or a submodule: no content of ours
    const auto [at, fresh] = slots.emplace(read_as(e.id, *kind), versions.size());
    if (fresh) {
      versions.push_back({{e.path}, {}});
      pending.push_back({&e, *kind, at->second});
    } else {
      versions[at->second].paths.push_back(e.path);
    }
  }
  std::atomic<std::size_t> done{0};
  parallel_for(pending.size(), [&](std::size_t i) {
    const Pending& p = pending[i];
    const auto text = repo.read_object(p.entry->id);
    if (!text)
      throw Error("cannot read " + p.entry->path + " (object " + p.entry->id +
                  ") from git's objects: purge-list reads every version in history (a partial clone lacks some; "
                  "filter-repo needs them all too: run both in a full clone)");
    versions[p.slot].digests = kept_alive(document_needs(p.kind, *text, 0, InputForm::Committed));
    if (progress) progress("Reading history", ++done, pending.size());
  });
}

}  // namespace

PurgeList run_purge_list(const Workspace& ws, const std::vector<std::string>& names, const fs::path& cwd,
                         const Progress& progress) {
  if (!ws.repo()) throw Error("purge-list must run in a git repository");
  const GitRepo& repo = *ws.repo();
  const GitCli git(repo.workdir() ? *repo.workdir() : repo.gitdir());
  PurgeList out;
  const std::vector<std::string> commits = git.all_commits();
  out.commits = commits.size();
  const std::vector<TreeEntry> entries = history_entries(repo, git, commits);
  std::vector<DocumentBlobs> versions = present_documents(ws, progress);
  std::unordered_set<std::string> known;
  for (const TreeEntry& e : entries) known.insert(e.path);
  for (const DocumentBlobs& v : versions) known.insert(v.paths.begin(), v.paths.end());
  // Resolved before any version in history is read: a mistyped name
  // costs the tree walk only.
  const PurgeTarget target = resolve_purge_target(names, known, ws.top(), cwd);
  add_history_versions(repo, entries, versions, progress);
  const BlobSplit split = split_blobs(versions, target);
  for (const std::string& f : target.folders) out.folders.push_back(f + "/");
  out.files = target.files;
  for (const DocumentBlobs& v : versions)
    for (const std::string& p : v.paths)
      if (target.holds(p)) out.documents.push_back(p);
  sort_unique(out.documents);
  for (const Digest& d : split.purge) out.blobs.push_back(tracked_blob_path(d));
  for (const auto& [d, other] : split.shared) out.shared.emplace_back(tracked_blob_path(d), other);
  return out;
}

}  // namespace jpblob
