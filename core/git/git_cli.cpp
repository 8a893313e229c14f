// GitCli's own workings (core/git/git_cli.hpp): starting git and reading
// its failures, where a work tree's repository is, git's version, and the
// merge of texts. The config is in git_cli_config.cpp, the index in
// git_cli_index.cpp, commits and objects in git_cli_history.cpp, packs in
// blob_pack.cpp.
#include "core/git/git_cli.hpp"

#include <algorithm>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/git/subprocess.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

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

}  // namespace

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

std::string GitCli::version() const {
  std::string out = must("ask git for its version", {"--version"});
  out = first_line(out);
  constexpr std::string_view prefix = "git version ";
  return out.starts_with(prefix) ? out.substr(prefix.size()) : out;
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
