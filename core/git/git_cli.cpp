#include "core/git/git_cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <unordered_set>
#include <map>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/git/index_file.hpp"
#include "core/git/object_hash.hpp"
#include "core/git/subprocess.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

std::string first_line(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

// What git said of a failure, in one line: its own "fatal:" or "error:"
// line where there is one, before a filter's warnings git passed on.
std::string git_error(const std::string& err) {
  for (std::size_t at = 0; at < err.size();) {
    const std::size_t end = std::min(err.find('\n', at), err.size());
    const std::string_view line(err.data() + at, end - at);
    if (line.starts_with("fatal: ") || line.starts_with("error: ")) return first_line(std::string(line));
    at = end + 1;
  }
  return first_line(err);
}

std::string scope_flag(ConfigScope scope) { return "--" + config_scope_name(scope); }

// Splits "a b c" into its space-separated fields.
std::vector<std::string_view> fields(std::string_view meta) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (start <= meta.size()) {
    const std::size_t space = std::min(meta.find(' ', start), meta.size());
    out.push_back(meta.substr(start, space - start));
    start = space + 1;
  }
  return out;
}

std::string nul_joined(const std::vector<std::string>& items, bool literal) {
  std::string out;
  for (const auto& item : items) out.append(literal ? literal_pathspec(item) : item).push_back('\0');
  return out;
}

}  // namespace

std::string config_scope_name(ConfigScope scope) {
  switch (scope) {
    case ConfigScope::Local: return "local";
    case ConfigScope::System: return "system";
    case ConfigScope::Worktree: return "worktree";
    case ConfigScope::Global: break;
  }
  return "global";
}

std::string literal_pathspec(std::string_view path) { return ":(literal)" + std::string(path); }

bool is_lfs_pointer(std::string_view content) {
  return content.size() < 1024 && content.starts_with("version https://git-lfs.github.com/spec/v1\n");
}

GitCli::GitCli(fs::path cwd, std::optional<fs::path> index_file)
    : cwd_(std::move(cwd)), index_file_(std::move(index_file)) {}

GitCli GitCli::with_index(fs::path index_file) const { return GitCli(cwd_, std::move(index_file)); }

GitCli::Output GitCli::run(std::vector<std::string> args, const std::string& input) const {
  args.insert(args.begin(), "git");
  Environment environment;
  // Output fully buffered: check-attr and check-ignore flush each record
  // into a pipe otherwise, and 114,000 paths' records cost as many wake-ups
  // here, half a second of the commit that stages them. The whole input is
  // given before the output is read: nothing waits on a record. Only those
  // two, which run nobody's code: a command that runs filters or hooks
  // (add, update-index) would hand the setting on, and a filter that asks
  // `git check-attr --stdin` one path at a time through a pipe of its own
  // (git-annex does) would wait forever for its answer.
  if (args[1] == "check-attr" || args[1] == "check-ignore") environment.emplace_back("GIT_FLUSH", "0");
  if (index_file_) environment.emplace_back("GIT_INDEX_FILE", fs::absolute(cwd_ / *index_file_).string());
  auto r = run_command(args, cwd_, input, environment);
  return {r.status, std::move(r.out), std::move(r.err)};
}

std::string GitCli::must(const std::string& what, std::vector<std::string> args, const std::string& input) const {
  auto r = run(std::move(args), input);
  if (r.status != 0) throw Error("cannot " + what + ": " + git_error(r.err));
  return std::move(r.out);
}

std::vector<IndexEntry> GitCli::index_entries(const std::vector<std::string>& pathspecs) const {
  std::vector<std::string> args = {"ls-files", "--stage", "-t", "-z", "--"};
  args.insert(args.end(), pathspecs.begin(), pathspecs.end());
  std::vector<IndexEntry> out;
  // Records: "<tag> <mode> <id> <stage>\t<path>"; tag S: skip-worktree.
  for (const std::string& record : split_records(must("read the index", args), '\0')) {
    const auto tab = record.find('\t');
    if (tab == std::string::npos) continue;
    const auto f = fields(std::string_view(record).substr(0, tab));
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
    const auto f = fields(std::string_view(meta).substr(1));
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

std::vector<GitCli::OutOfTree> GitCli::stage_out_of_tree(std::vector<OutOfTree> entries, std::uint64_t max_size) const {
  if (entries.empty()) return entries;
  // git hashes a file as the attributes of its path say: a store git-lfs
  // tracks stages pointers, cleaned by git-lfs. One hash-object a filter
  // (`--path` applies that path's attributes to every file given), and
  // one pack for every file no filter applies to, the usual case.
  std::vector<std::string> paths;
  for (const OutOfTree& e : entries)
    if (e.id.empty()) paths.push_back(e.path);
  auto filter_of = filters_of(paths);
  std::map<std::string, std::vector<std::size_t>> by_filter;
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (entries[i].id.empty()) by_filter[filter_of[entries[i].path]].push_back(i);
  const bool writes = !by_filter.empty();
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
  return entries;
}

void GitCli::set_index_ids(const std::vector<IndexEntry>& entries) const {
  if (entries.empty()) return;
  std::string info;
  for (const IndexEntry& e : entries) info.append(e.mode).append(" ").append(e.id).append("\t").append(e.path).push_back('\0');
  must("restage the files", {"update-index", "-z", "--index-info"}, info);
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

std::vector<TreeEntry> GitCli::tree_entries(const std::string& commit, const std::vector<std::string>& pathspecs) const {
  std::vector<std::string> args = {"ls-tree", "-r", "-z", "--full-tree", commit, "--"};
  args.insert(args.end(), pathspecs.begin(), pathspecs.end());
  std::vector<TreeEntry> out;
  // Records: "<mode> <type> <id>\t<path>".
  for (const std::string& record : split_records(must("list commit " + commit, args), '\0')) {
    const auto tab = record.find('\t');
    if (tab == std::string::npos) continue;
    const auto f = fields(std::string_view(record).substr(0, tab));
    if (f.size() != 3) continue;
    out.push_back({std::string(f[0]), std::string(f[1]), std::string(f[2]), record.substr(tab + 1)});
  }
  return out;
}

std::vector<std::string> GitCli::all_commits() const {
  return split_records(must("list the commits", {"rev-list", "--all"}), '\n');
}

std::vector<std::string> GitCli::rev_list(const std::vector<std::string>& args) const {
  std::vector<std::string> full = {"rev-list"};
  full.insert(full.end(), args.begin(), args.end());
  return split_records(must("list commits", full), '\n');
}

std::optional<std::vector<std::string>> GitCli::advertised_ids(const std::string& remote) const {
  auto r = run({"ls-remote", "--end-of-options", remote});
  if (r.status != 0) return std::nullopt;
  std::vector<std::string> out;
  // Lines: "<id>\t<ref>".
  for (const std::string& line : split_records(r.out, '\n'))
    if (const auto tab = line.find('\t'); tab != std::string::npos) out.push_back(line.substr(0, tab));
  return out;
}

std::optional<std::string> GitCli::resolve_commit(const std::string& rev) const {
  auto r = run({"rev-parse", "-q", "--verify", "--end-of-options", rev + "^{commit}"});
  if (r.status != 0 || first_line(r.out).empty()) return std::nullopt;
  return first_line(r.out);
}

std::vector<std::string> GitCli::stash_commits() const {
  if (!resolve_commit("refs/stash")) return {};
  std::vector<std::string> out;
  // "<entry> <HEAD then> <index> [<untracked>]": all but the HEAD then,
  // which is an ordinary commit.
  for (const std::string& line : split_records(must("list the stash", {"log", "-g", "--format=%H %P", "refs/stash"}), '\n')) {
    const auto f = fields(line);
    for (std::size_t i = 0; i < f.size(); ++i)
      if (i != 1 && !f[i].empty()) out.emplace_back(f[i]);
  }
  return out;
}

std::vector<std::string> GitCli::in_progress_commits() const {
  std::vector<std::string> out;
  for (const char* head : {"MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "ORIG_HEAD"})
    if (auto id = resolve_commit(head)) out.push_back(*id);
  // A rebase stopped midway still has to replay orig-head's commits that
  // are not on onto.
  const auto git_path = [&](const std::string& p) {
    return fs::path(first_line(must("find the git folder", {"rev-parse", "--git-path", p})));
  };
  for (const char* dir : {"rebase-merge", "rebase-apply"}) {
    std::error_code ec;
    const fs::path folder = fs::absolute(cwd_ / git_path(dir));
    if (!fs::is_directory(folder, ec)) continue;
    auto read_id = [&](const char* name) -> std::optional<std::string> {
      std::string text;
      try {
        text = read_file(folder / name, 1024);
      } catch (const Error&) {
        return std::nullopt;
      }
      return resolve_commit(first_line(text));
    };
    const auto orig = read_id("orig-head"), onto = read_id("onto");
    if (!orig) continue;
    std::vector<std::string> args = {*orig};
    if (onto) args.insert(args.end(), {"--not", *onto});
    for (auto& id : rev_list(args)) out.push_back(std::move(id));
  }
  return out;
}

std::optional<std::string> GitCli::read_blob(const std::string& id) const {
  auto r = run({"cat-file", "blob", id});
  if (r.status != 0) return std::nullopt;
  return std::move(r.out);
}

bool GitCli::fetch_objects(const std::string& remote, const std::vector<std::string>& ids) const {
  if (ids.empty()) return true;
  std::string wanted;
  for (const std::string& id : ids) wanted += id + "\n";
  // The name comes from .git/config: after "--" one that starts with a dash
  // is a name git does not know, not an option (--upload-pack runs a command).
  return run({"-c", "fetch.negotiationAlgorithm=noop", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head",
              "--recurse-submodules=no", "--filter=blob:none", "--stdin", "--", remote},
             wanted)
             .status == 0;
}

std::vector<std::pair<std::string, std::string>> GitCli::blobs_in_history(const std::string& folder) const {
  // "<id> <path>" per object; a path may hold spaces, none of ours do.
  const auto lines = split_records(
      must("list the history of " + folder,
           {"rev-list", "--objects", "--all", "--missing=allow-promisor", "--", literal_pathspec(folder)}),
      '\n');
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string& line : lines) {
    const auto space = line.find(' ');
    if (space == std::string::npos) continue;  // a commit or the root tree
    out.emplace_back(line.substr(space + 1), line.substr(0, space));
  }
  return out;
}

std::optional<std::string> GitCli::lfs_smudge(const std::string& pointer, const std::string& path) const {
  auto r = run({"lfs", "smudge", "--", path}, pointer);
  if (r.status != 0) return std::nullopt;
  return std::move(r.out);
}

GitCli GitCli::in_worktree(const fs::path& top) {
  const fs::path dot_git = top / ".git";
  std::error_code ec;
  if (fs::is_directory(dot_git, ec)) return GitCli(top, dot_git / "index");
  // A linked worktree's .git is a file: "gitdir: <its git folder>".
  std::string text = read_file(dot_git, 4096);
  if (!text.starts_with("gitdir: ")) throw Error("cannot find the git folder of worktree " + top.string());
  text = text.substr(8);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  fs::path gitdir = text;
  if (gitdir.is_relative()) gitdir = top / gitdir;
  return GitCli(top, gitdir / "index");
}

std::vector<fs::path> GitCli::worktrees() const {
  std::vector<fs::path> out;
  // Blocks of "worktree <path>\0…\0", each ended by an empty field; a bare
  // main repository is listed with a "bare" field and has no files.
  bool bare = false;
  std::optional<fs::path> current;
  for (const std::string& field : split_records(must("list the worktrees", {"worktree", "list", "--porcelain", "-z"}), '\0')) {
    if (field.starts_with("worktree ")) {
      current = field.substr(9);
      bare = false;
    } else if (field == "bare") {
      bare = true;
    } else if (field.empty() && current) {
      if (!bare) out.push_back(*current);
      current.reset();
    }
  }
  if (current && !bare) out.push_back(*current);
  return out;
}

std::optional<RepoLayout> GitCli::layout() const {
  auto top = run({"rev-parse", "--show-toplevel"});
  if (top.status != 0 || first_line(top.out).empty()) return std::nullopt;
  RepoLayout layout;
  layout.top = first_line(top.out);
  // Asked from the top, so relative answers are relative to it.
  const auto lines = split_records(
      GitCli(layout.top, index_file_)
          .must("find the hooks folder",
                {"rev-parse", "--git-path", "hooks", "--git-common-dir", "--git-path", "info/sparse-checkout"}),
      '\n');
  if (lines.size() < 3) throw Error("cannot find the hooks folder: git rev-parse said too little");
  layout.hooks = fs::absolute(layout.top / lines[0]).lexically_normal();
  layout.common_dir = fs::absolute(layout.top / lines[1]).lexically_normal();
  layout.sparse_checkout = fs::absolute(layout.top / lines[2]).lexically_normal();
  return layout;
}

std::optional<std::string> GitCli::config_get(const std::string& key, std::optional<ConfigScope> scope,
                                              const std::string& type) const {
  return config_get_from(scope ? std::vector<std::string>{scope_flag(*scope)} : std::vector<std::string>{}, key, type);
}

std::optional<std::string> GitCli::config_get_from(std::vector<std::string> where, const std::string& key,
                                                   const std::string& type) const {
  std::vector<std::string> args = {"config"};
  args.insert(args.end(), where.begin(), where.end());
  if (!type.empty()) args.push_back("--type=" + type);
  args.insert(args.end(), {"--get", key});
  auto r = run(args);
  if (r.status == 1) return std::nullopt;  // unset
  if (r.status != 0) throw Error("cannot read git config " + key + ": " + first_line(r.err));
  return first_line(r.out);
}

void GitCli::config_set(const std::string& key, const std::string& value, ConfigScope scope) const {
  must("set git config " + key, {"config", scope_flag(scope), "--replace-all", key, value});
}

void GitCli::use_worktree_config(const fs::path& common_dir) const {
  const std::string shared = (common_dir / "config").string(), main = (common_dir / "config.worktree").string();
  const auto get = [&](const std::string& key, const std::string& type) {
    return config_get_from({"--file", shared}, key, type);
  };
  if (get("extensions.worktreeConfig", "bool") == "true") return;
  must("set git config extensions.worktreeConfig", {"config", "--file", shared, "extensions.worktreeConfig", "true"});
  // core.bare=false stays: it may be undoing a global core.bare=true.
  std::vector<std::pair<std::string, std::string>> moving;
  if (get("core.bare", "bool") == "true") moving.emplace_back("core.bare", "true");
  if (auto at = get("core.worktree", "")) moving.emplace_back("core.worktree", *at);
  for (const auto& [key, value] : moving) {
    must("set git config " + key, {"config", "--file", main, key, value});
    must("move git config " + key, {"config", "--file", shared, "--unset-all", key});
  }
}

bool GitCli::config_unset(const std::string& key, ConfigScope scope) const {
  auto r = run({"config", scope_flag(scope), "--unset-all", key});
  if (r.status == 5) return false;  // it was not set
  if (r.status != 0) throw Error("cannot unset git config " + key + ": " + first_line(r.err));
  return true;
}

std::optional<GitCli::ConfigOrigin> GitCli::config_origin(const std::string& key) const {
  auto r = run({"config", "--show-scope", "--show-origin", "-z", "--get-all", key});
  if (r.status == 1) return std::nullopt;  // unset
  if (r.status != 0) throw Error("cannot read git config " + key + ": " + first_line(r.err));
  // -z: "<scope>\0<origin>\0<value>\0" per value; the last one is git's.
  const std::vector<std::string> fields = split_records(r.out, '\0');
  if (fields.size() < 3) throw Error("cannot read git config " + key + ": unexpected output of git config");
  const std::size_t last = fields.size() - fields.size() % 3 - 3;
  return ConfigOrigin{fields[last + 2], fields[last], fields[last + 1]};
}

std::string GitCli::version() const {
  std::string out = must("ask git for its version", {"--version"});
  out = first_line(out);
  constexpr std::string_view prefix = "git version ";
  return out.starts_with(prefix) ? out.substr(prefix.size()) : out;
}

bool GitCli::config_remove_empty_section(const std::string& section, ConfigScope scope) const {
  auto rest = run({"config", scope_flag(scope), "--get-regexp", "^" + section + "\\."});
  if (rest.status != 1) return false;  // keys are left (or it cannot tell): keep it
  return run({"config", scope_flag(scope), "--remove-section", section}).status == 0;
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

GitCli::LineMerge GitCli::merge_texts(std::string_view ours, std::string_view base, std::string_view theirs,
                                      int marker_size) const {
  // git merge-file reads files only (--object-id came in git 2.43): three
  // private throwaway files.
  const ScratchDir dir("a merge");
  const fs::path o = dir.write("ours", ours), b = dir.write("base", base), t = dir.write("theirs", theirs);
  auto r = run({"merge-file", "-p", "--marker-size=" + std::to_string(marker_size), "-L", "ours", "-L", "base", "-L",
                "theirs", o.string(), b.string(), t.string()});
  // Its status is the number of conflicts (at most 127); above that, an error.
  if (r.status < 0 || r.status > 127) throw Error("cannot merge: git merge-file: " + r.err);
  return {std::move(r.out), r.status > 0};
}

}  // namespace jpblob
