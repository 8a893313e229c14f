// GitCli's questions about commits, refs and the objects they hold
// (core/git/git_cli.hpp): trees, revision lists, the stash, an operation in
// progress, a remote's refs, and blobs read or fetched through git.
#include "core/git/git_cli.hpp"

#include <sys/stat.h>

#include <cctype>
#include <ctime>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/git/subprocess.hpp"

namespace jpblob {

namespace fs = std::filesystem;

std::vector<TreeEntry> GitCli::tree_entries(const std::string& commit, const std::vector<std::string>& pathspecs) const {
  std::vector<std::string> args = {"ls-tree", "-r", "-z", "--full-tree", commit, "--"};
  args.insert(args.end(), pathspecs.begin(), pathspecs.end());
  std::vector<TreeEntry> out;
  // Records: "<mode> <type> <id>\t<path>".
  for (const std::string& record : split_records(must("list commit " + commit, args), '\0')) {
    const auto tab = record.find('\t');
    if (tab == std::string::npos) continue;
    const auto f = split_fields(std::string_view(record).substr(0, tab));
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

std::vector<std::string> GitCli::included_revisions(const std::vector<std::string>& revisions) const {
  std::vector<std::string> args = {"rev-parse", "--revs-only"};
  if (revisions.empty()) {
    args.push_back("--all");
  } else {
    args.push_back("--end-of-options");
    args.insert(args.end(), revisions.begin(), revisions.end());
  }
  std::vector<std::string> out;
  for (std::string& line : split_records(must("read the revisions", args), '\n'))
    if (!line.empty() && line[0] != '^') out.push_back(std::move(line));
  // rev-list's --all holds HEAD too (a detached one); rev-parse's does not.
  if (revisions.empty())
    if (auto head = resolve_commit("HEAD")) out.push_back(std::move(*head));
  return out;
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

namespace {

// The commits of stash entries listed as "<entry> <HEAD then> <index>
// [<untracked>]" a line (`git log --format=%H %P`): all but the HEAD then,
// which is an ordinary commit.
void add_stash_parts(const std::string& listing, std::vector<std::string>& out) {
  for (const std::string& line : split_records(listing, '\n')) {
    const auto f = split_fields(line);
    for (std::size_t i = 0; i < f.size(); ++i)
      if (i != 1 && !f[i].empty()) out.emplace_back(f[i]);
  }
}

}  // namespace

std::vector<std::string> GitCli::stash_commits() const {
  if (!resolve_commit("refs/stash")) return {};
  std::vector<std::string> out;
  add_stash_parts(must("list the stash", {"log", "-g", "--format=%H %P", "refs/stash"}), out);
  return out;
}

std::vector<std::string> GitCli::recent_loose_commits(std::time_t since) const {
  const fs::path objects =
      fs::absolute(cwd_ / first_line(must("find git's objects", {"rev-parse", "--git-path", "objects"})));
  std::string ids;
  std::error_code ec;
  for (fs::directory_iterator dir(objects, ec), end; !ec && dir != end; dir.increment(ec)) {
    const std::string fan = dir->path().filename().string();
    if (fan.size() != 2 || !std::isxdigit(static_cast<unsigned char>(fan[0])) ||
        !std::isxdigit(static_cast<unsigned char>(fan[1])))
      continue;
    std::error_code inner;
    for (fs::directory_iterator file(dir->path(), inner); !inner && file != end; file.increment(inner)) {
      struct stat st {};
      if (::lstat(file->path().c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_mtime < since) continue;
      ids += fan + file->path().filename().string() + "\n";
    }
  }
  std::vector<std::string> out;
  if (ids.empty()) return out;
  for (const std::string& line :
       split_records(must("read git's objects", {"cat-file", "--batch-check=%(objectname) %(objecttype)"}, ids), '\n')) {
    const auto f = split_fields(line);
    if (f.size() == 2 && f[1] == "commit") out.emplace_back(f[0]);
  }
  return out;
}

std::vector<std::string> GitCli::autostash_commits() const {
  std::vector<std::string> out;
  const auto paths = split_records(
      must("find the git folder", {"rev-parse", "--path-format=absolute", "--git-path", "rebase-merge/autostash",
                                   "--git-path", "rebase-apply/autostash", "--git-path", "MERGE_AUTOSTASH"}),
      '\n');
  for (const std::string& path : paths) {
    std::string text;
    try {
      text = read_file(path, 1024);
    } catch (const Error&) {
      continue;  // none there
    }
    const auto id = resolve_commit(first_line(text));
    if (!id) continue;
    // A stash entry's shape (`git stash create`).
    add_stash_parts(must("read an autostash", {"log", "-1", "--format=%H %P", *id}), out);
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

std::unordered_map<std::string, std::string> GitCli::filters_in_tree(const std::vector<TreeEntry>& attribute_files,
                                                                     const std::vector<std::string>& paths) const {
  std::unordered_map<std::string, std::string> filter_of;
  for (const std::string& p : paths) filter_of[p] = "";
  if (paths.empty() || attribute_files.empty()) return filter_of;
  const ScratchDir scratch("a commit's attributes");
  const GitCli in_scratch = with_index(scratch.path() / "index");
  std::string entries;
  for (const TreeEntry& e : attribute_files) entries += e.mode + ' ' + e.id + '\t' + e.path + '\0';
  in_scratch.must("read a commit's attributes", {"update-index", "-z", "--index-info"}, entries);
  std::string input;
  for (const std::string& p : paths) input.append(p).push_back('\0');
  // Records: <path> NUL filter NUL <value> NUL. A sparse checkout's
  // patterns must not hide an attributes file of the scratch index.
  const auto attrs = split_records(
      in_scratch.must("read a commit's attributes",
                      {"-c", "core.attributesFile=/dev/null", "-c", "core.sparseCheckout=false", "check-attr",
                       "--cached", "-z", "--stdin", "filter"},
                      input),
      '\0');
  for (std::size_t i = 0; i + 2 < attrs.size(); i += 3) {
    const std::string& value = attrs[i + 2];
    filter_of[attrs[i]] = value == "unspecified" || value == "unset" ? "" : value;
  }
  return filter_of;
}

std::optional<std::string> GitCli::lfs_smudge(const std::string& pointer, const std::string& path) const {
  auto r = run({"lfs", "smudge", "--", path}, pointer);
  if (r.status != 0) return std::nullopt;
  return std::move(r.out);
}

std::string GitCli::commit(const std::string& message) const {
  must("commit", {"commit", "-q", "--no-verify", "-F", "-"}, message);
  const auto head = resolve_commit("HEAD");
  if (!head) throw Error("cannot read the commit just made");
  return *head;
}

}  // namespace jpblob
