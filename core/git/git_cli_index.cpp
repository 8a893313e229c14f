// GitCli's reads and edits of the index (core/git/git_cli.hpp): what it
// holds, what is staged, staging and unstaging, the skip-worktree bit, and
// checking files out of it. Staging many blob files as packs is in
// blob_pack.cpp.
#include "core/git/git_cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/git/index_file.hpp"
#include "core/git/object_hash.hpp"
#include "core/git/subprocess.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

std::string nul_joined(const std::vector<std::string>& items, bool literal) {
  std::string out;
  for (const auto& item : items) out.append(literal ? literal_pathspec(item) : item).push_back('\0');
  return out;
}

}  // namespace

std::vector<IndexEntry> GitCli::index_entries(const std::vector<std::string>& pathspecs) const {
  std::vector<std::string> args = {"ls-files", "--stage", "-t", "-z", "--"};
  args.insert(args.end(), pathspecs.begin(), pathspecs.end());
  std::vector<IndexEntry> out;
  // Records: "<tag> <mode> <id> <stage>\t<path>"; tag S: skip-worktree.
  for (const std::string& record : split_records(must("read the index", args), '\0')) {
    const auto tab = record.find('\t');
    if (tab == std::string::npos) continue;
    const auto f = split_fields(std::string_view(record).substr(0, tab));
    if (f.size() != 4) continue;
    out.push_back({std::string(f[1]), std::string(f[2]), f[3].empty() ? 0 : f[3][0] - '0', record.substr(tab + 1),
                   f[0] == "S" || f[0] == "s"});
  }
  return out;
}

std::unordered_map<std::string, std::string> GitCli::index_ids(const std::vector<std::string>& paths) const {
  std::unordered_map<std::string, std::string> out;
  if (paths.empty()) return out;
  std::string input;
  for (const auto& p : paths) input.append(":0:" + p).push_back('\0');
  const std::string printed =
      must("read the index", {"cat-file", "--batch-check=%(objectname)", "-z"}, input);
  // One line per name, in order: its id, or "<name> missing". A name may
  // hold a newline, so a missing one is recognised by its whole text.
  std::size_t at = 0;
  for (const auto& p : paths) {
    const std::string missing = ":0:" + p + " missing\n";
    if (printed.compare(at, missing.size(), missing) == 0) {
      at += missing.size();
      continue;
    }
    const auto end = printed.find('\n', at);
    if (end == std::string::npos) throw Error("cannot read the index: git cat-file stopped early");
    out.emplace(p, printed.substr(at, end - at));
    at = end + 1;
  }
  return out;
}

std::vector<RawChange> GitCli::staged_changes(const std::vector<std::string>& pathspecs) const {
  std::vector<std::string> args = {"diff",          "--cached",     "--raw", "-z", "--no-renames",
                                   "--no-ext-diff", "--no-abbrev", "--"};
  args.insert(args.end(), pathspecs.begin(), pathspecs.end());
  const auto records = split_records(must("list what is staged", args), '\0');
  std::vector<RawChange> out;
  // Records: ":<mode> <mode> <id> <id> <status>" then the path.
  for (std::size_t i = 0; i + 1 < records.size(); i += 2) {
    const std::string& meta = records[i];
    if (meta.empty() || meta[0] != ':') continue;
    const auto f = split_fields(std::string_view(meta).substr(1));
    if (f.size() != 5 || f[4].empty()) continue;
    out.push_back({std::string(f[0]), std::string(f[1]), std::string(f[2]), std::string(f[3]), f[4][0],
                   records[i + 1]});
  }
  return out;
}

void GitCli::add_to_index(const std::vector<std::string>& paths) const {
  if (paths.empty()) return;
  must("stage the files", {"update-index", "--add", "-z", "--stdin"}, nul_joined(paths, false));
}

void add_folders_above(std::string_view path, std::unordered_set<std::string_view>& folders) {
  for (std::size_t slash = path.rfind('/'); slash != std::string_view::npos && slash > 0; slash = path.rfind('/', slash - 1))
    if (!folders.insert(path.substr(0, slash)).second) return;
}

void GitCli::refuse_files_above(const std::vector<std::string>& paths) const {
  std::unordered_set<std::string_view> folders, tops;
  for (const std::string& p : paths) {
    tops.insert(std::string_view(p).substr(0, p.find('/')));
    add_folders_above(p, folders);
  }
  // What the index holds at or below each top folder, any mode: `git
  // cat-file` cannot say, a submodule's commit being in another
  // repository's objects.
  std::vector<std::string> args = {"ls-files", "-z", "--"};
  for (const std::string_view top : tops)
    if (folders.count(top)) args.push_back(literal_pathspec(std::string(top)));
  if (args.size() == 3) return;
  const std::unordered_set<std::string_view> staging(paths.begin(), paths.end());
  for (const std::string& name : split_records(must("read the index", args), '\0')) {
    if (folders.count(name)) throw IndexEntryInTheWay::at(name, name, false);
    for (std::size_t slash = name.rfind('/'); slash != std::string::npos && slash > 0; slash = name.rfind('/', slash - 1))
      if (const std::string_view above = std::string_view(name).substr(0, slash); staging.count(above))
        throw IndexEntryInTheWay::at(std::string(above), name, true);
  }
}

std::unordered_map<std::string, std::string> GitCli::filters_of(const std::vector<std::string>& paths) const {
  std::unordered_map<std::string, std::string> filter_of;
  if (paths.empty()) return filter_of;
  std::string input;
  for (const std::string& p : paths) input.append(p).push_back('\0');
  // Records: <path> NUL filter NUL <value> NUL.
  const auto attrs =
      split_records(must("read the blobs' attributes", {"check-attr", "-z", "--stdin", "filter"}, input), '\0');
  for (std::size_t i = 0; i + 2 < attrs.size(); i += 3) {
    const std::string& value = attrs[i + 2];
    filter_of[attrs[i]] = value == "unspecified" || value == "unset" ? "" : value;
  }
  return filter_of;
}

std::vector<GitCli::OutOfTree> GitCli::stage_out_of_tree(std::vector<OutOfTree> entries, std::uint64_t max_size) const {
  if (entries.empty()) return entries;
  // git hashes a file as the attributes of its path say: a store git-lfs
  // tracks stages pointers, cleaned by git-lfs. One hash-object a filter
  // (`--path` applies that path's attributes to every file given), and
  // one pack for every file no filter applies to, the usual case.
  std::vector<std::string> paths;
  for (const OutOfTree& e : entries)
    if (e.id.empty() || e.raw) paths.push_back(e.path);
  auto filter_of = filters_of(paths);
  // Raw bytes git's objects hold where a filter applies: a file for it.
  std::optional<ScratchDir> scratch;
  for (OutOfTree& e : entries) {
    if (!e.raw || e.id.empty() || filter_of[e.path].empty()) continue;
    const auto bytes = read_blob(e.id);
    if (!bytes) throw Error("cannot stage " + e.path + ": git's objects lack " + e.id);
    if (!scratch) scratch.emplace("stage blobs through their filter");
    e.file = scratch->write(e.id, *bytes).string();
    e.id.clear();
  }
  std::map<std::string, std::vector<std::size_t>> by_filter;
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].id.empty()) by_filter[filter_of[entries[i].path]].push_back(i);
  // Raw ids are new objects too (a pending pack's): their trees are new.
  const bool writes = !by_filter.empty() || std::any_of(entries.begin(), entries.end(), [](const OutOfTree& e) {
    return e.raw;
  });
  for (const auto& [filter, members] : by_filter) {
    if (filter.empty()) {
      // Strings, not paths: a std::filesystem::path holds each of its
      // components again, half a kilobyte a kept copy, times 100,000.
      std::vector<std::string> files;
      for (const std::size_t i : members) files.push_back(entries[i].file);
      const auto ids = write_blobs(files, max_size);
      for (std::size_t k = 0; k < members.size(); ++k) entries[members[k]].id = ids[k];
      continue;
    }
    // git refuses --path with --stdin-paths: the files as arguments, a
    // few hundred a call.
    constexpr std::size_t kPerCall = 256;
    for (std::size_t from = 0; from < members.size(); from += kPerCall) {
      const std::vector<std::size_t> part(members.begin() + from,
                                          members.begin() + std::min(members.size(), from + kPerCall));
      std::vector<std::string> args = {"hash-object", "-w", "--path=" + entries[part.front()].path, "--"};
      for (const std::size_t i : part) args.push_back(entries[i].file);
      const auto written = split_records(must("write blobs to git's objects", args), '\n');
      if (written.size() != part.size())
        throw Error("cannot write blobs to git's objects: git hash-object gave " + std::to_string(written.size()) +
                    " ids for " + std::to_string(part.size()) + " files");
      for (std::size_t k = 0; k < part.size(); ++k) entries[part[k]].id = written[k];
    }
  }
  std::string info;
  std::vector<std::string> staged;
  std::vector<NewIndexEntry> adding;
  for (const OutOfTree& e : entries) {
    info.append("100644 ").append(e.id).append("\t").append(e.path).push_back('\0');
    staged.push_back(e.path);
    adding.push_back({e.path, 0100644, raw_object_id(e.id)});
  }
  // git adds index entries one at a time, moving every entry after each
  // (index_file.hpp): written in one pass where the index is one this can
  // be sure of, else by git.
  const auto index = index_path();
  if (!index || !add_entries_in_place(*index, std::move(adding), object_format())) {
    refuse_files_above(staged);  // --index-info would replace such an entry
    must("stage the blobs", {"update-index", "-z", "--index-info"}, info);
    set_skip_worktree(staged);
  }
  // Another index given the ids already written (`git commit <paths>`)
  // holds the same folders: their trees are written already.
  if (writes) write_trees_holding(staged);
  for (OutOfTree& e : entries) e.raw = false;  // each id is what the index holds now
  return entries;
}

void GitCli::set_index_ids(const std::vector<IndexEntry>& entries) const {
  if (entries.empty()) return;
  std::string info;
  for (const IndexEntry& e : entries) info.append(e.mode).append(" ").append(e.id).append("\t").append(e.path).push_back('\0');
  must("restage the files", {"update-index", "-z", "--index-info"}, info);
}

void GitCli::remove_tracked(const std::string& folder) const {
  must("remove " + folder + " from the index",
       {"rm", "-r", "-q", "--sparse", "--ignore-unmatch", "--", literal_pathspec(folder)});
}

void GitCli::refresh_index() const {
  run({"update-index", "-q", "--refresh"});  // exit 1 names what differs: nothing to refresh there
}

std::size_t GitCli::remove_from_index(const std::vector<std::string>& paths) const {
  const auto tracked = index_ids(paths);
  if (tracked.empty()) return 0;
  std::string input;
  for (const auto& p : paths)
    if (tracked.count(p)) input.append(p).push_back('\0');
  for (int attempt = 0;; ++attempt) {
    auto r = run({"update-index", "--force-remove", "-z", "--stdin"}, input);
    if (r.status == 0) return tracked.size();
    if (attempt == 40 || r.err.find("index.lock") == std::string::npos)
      throw Error("cannot remove files from the index: " + first_line(r.err));
    ::usleep(50000);
  }
}

void GitCli::add(const std::vector<std::string>& paths) const {
  if (paths.empty()) return;
  must("add the files", {"add", "--pathspec-from-file=-", "--pathspec-file-nul"}, nul_joined(paths, true));
}

bool GitCli::tracks_any(const std::string& path) const {
  return !must("list the index", {"ls-files", "-z", "--", literal_pathspec(path)}).empty();
}

void GitCli::set_skip_worktree(const std::vector<std::string>& paths, bool on) const {
  if (paths.empty()) return;
  must(on ? "mark blobs as kept out of the work tree" : "bring blobs back into the work tree",
       {"update-index", on ? "--skip-worktree" : "--no-skip-worktree", "-z", "--stdin"},
       nul_joined(paths, false));
}

std::optional<fs::path> GitCli::index_path() const {
  if (index_file_) return fs::absolute(cwd_ / *index_file_);
  const auto r = run({"rev-parse", "--path-format=absolute", "--git-path", "index"});
  if (r.status != 0) return std::nullopt;
  return fs::path(first_line(r.out));
}

bool GitCli::set_skip_worktree_in_place(const std::vector<std::string>& paths, bool end_of_entries) const {
  if (paths.empty()) return true;
  const auto index = index_path();
  return index && mark_skip_worktree_in_place(*index, {paths.begin(), paths.end()}, object_format(), end_of_entries);
}

bool GitCli::rebuild_cache_tree() const { return run({"write-tree"}).status == 0; }

void GitCli::check_out_from_index(const std::vector<std::string>& paths) const {
  if (paths.empty()) return;
  must("check the blobs out", {"checkout-index", "-f", "-z", "--stdin"}, nul_joined(paths, false));
}

}  // namespace jpblob
