#include "commands.hpp"

#include "cli/problem_list.hpp"
#include "cli/quiet.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "core/base/error.hpp"
#include "core/base/trace.hpp"
#include "core/base/fs.hpp"
#include "core/git/config_reader.hpp"
#include "core/merge/merge.hpp"
#include "core/merge/sequence_record.hpp"
#include "core/documents/render.hpp"
#include "core/store/restore_budget.hpp"
#include "core/workspace/workspace.hpp"
#include "hooks/pre_commit.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/subprocess.hpp"
#include "install/exporter.hpp"
#include "install/hook_folder.hpp"
#include "install/hook_managers.hpp"
#include "hooks/post_checkout.hpp"
#include "hooks/pre_push.hpp"
#include "hooks/pre_receive.hpp"

namespace jpblob {

namespace fs = std::filesystem;

fs::path program_path() {
  std::error_code ec;
  fs::path self = fs::canonical("/proc/self/exe", ec);
  if (ec) throw Error("cannot find this program's own path: " + ec.message());
  return self;
}

namespace {

// What install and uninstall did, one line each; a warning goes to
// standard error, -q or not.
void print_lines(const std::vector<std::string>& lines) {
  for (const auto& line : lines) {
    if (line.starts_with("warning: ")) std::cerr << "git-jpblob: " << line << '\n';
    else if (!quiet()) std::cout << line << '\n';
  }
}

}  // namespace

void run_install(const InstallOptions& options) {
  if (auto warning = path_warning(options.program)) std::cerr << "git-jpblob: warning: " << *warning << '\n';
  print_lines(install(fs::current_path(), options));
}

void run_uninstall(const InstallOptions& options) { print_lines(uninstall(fs::current_path(), options)); }

void run_export(bool dry_run) {
  const ExportReport r = export_repository(fs::current_path(), dry_run);
  if (r.nothing_to_do()) {
    if (!quiet()) std::cout << "Nothing to export: no document here holds a reference, .gitattributes holds no line of "
                               "git-jpblob's and the index no blob file.\n";
    return;
  }
  if (dry_run || !quiet())
    for (const auto& f : r.documents) std::cout << (dry_run ? "would commit " : "committed ") << f << " in JP's form\n";
  if (quiet() && !dry_run) return;
  std::cout << (dry_run ? "Would commit " : "Committed ") << r.documents.size() << " document(s) in JP's form, "
            << r.attribute_lines << " line(s) out of .gitattributes and " << r.blobs << " blob file(s) out of the index"
            << (r.commit ? " in " + r.commit->substr(0, 12) : std::string()) << ".\n";
  if (r.commit)
    std::cout << "Push it for the team (`git push`). Earlier commits still need git-jpblob to check out; "
                 "`git jpblob uninstall` removes git-jpblob's set-up from this machine.\n";
}

namespace {

// In a repository git-jpblob cannot read (a SHA-256 one), a hook steps
// aside with one warning: refusing would block every commit, push and
// checkout of it.
template <class Run>
void unless_unreadable(const Run& run) {
  try {
    run();
  } catch (const UnsupportedRepository& e) {
    std::cerr << "git-jpblob: warning: " << e.what() << "; its checks did not run\n";
  }
}

}  // namespace

void run_textconv(const fs::path& file) {
  const std::string bytes = read_file(file);
  std::optional<Workspace> opened;
  try {
    opened.emplace(Workspace::open(fs::current_path(), std::nullopt, SharedSettings::Later));
  } catch (const UnsupportedRepository&) {
    write_all(STDOUT_FILENO, bytes, "standard output");  // a display never aborts: shown as committed
    return;
  }
  const Workspace& ws = *opened;
  const std::uint64_t max = ws.settings().store.max_blob_size, threshold = ws.settings().big_file_threshold;
  std::string shown;
  if (bytes.starts_with("\x1f\x8b")) {
    // git names the file it hands over after the path it shows
    // (diff.c's prep_temp_blob: git-blob-XXXXXX/<hex>.blob.gz).
    const std::string name = file.filename().string();
    const std::optional<Digest> digest =
        name.ends_with(".blob.gz") ? Digest::from_hex(name.substr(0, name.size() - 8)) : std::nullopt;
    shown = render_blob_file(bytes, max, threshold, digest);
  } else {
    try {
      shown = render_conversation(bytes, ws.blobs(), max, file.string(), threshold);
    } catch (const TooLargeToRestore& e) {
      // A display never aborts: show the committed form.
      std::cerr << "git-jpblob: warning: " << e.what() << "; showing it as committed\n";
      shown = bytes;
    }
  }
  write_all(STDOUT_FILENO, shown, "standard output");
}

}  // namespace jpblob

namespace jpblob {

namespace {

// The first problems on lines of their own, then the one-line error that
// refuses: the last problem shown and how many stood above it, or the count
// of the rest by kind and of them all (cli/problem_list), then what was
// refused, and each distinct way to mend it once (the problems', then
// `mend`).
[[noreturn]] void refuse(const std::vector<Problem>& problems, const std::string& refused,
                         const std::string& mend = {}) {
  const ProblemList list = list_problems(problems);
  const std::size_t above = list.more ? list.shown.size() : list.shown.size() - 1;
  for (std::size_t i = 0; i < above; ++i) std::cerr << "git-jpblob: " << list.shown[i] << '\n';
  std::vector<std::string> mends;
  for (const Problem& p : problems)
    if (!p.mend.empty() && std::find(mends.begin(), mends.end(), p.mend) == mends.end()) mends.push_back(p.mend);
  if (!mend.empty()) mends.push_back(mend);
  std::string ending = "; " + refused;
  for (std::size_t i = 0; i < mends.size(); ++i) ending += (i ? "; and " : ". To mend it: ") + mends[i];
  if (list.more) throw Error(list.rest + ", " + std::to_string(problems.size()) + " in all" + ending, ErrorKind::Problem);
  throw Error(list.shown.back() + (above ? " (and " + std::to_string(above) + " more above)" : std::string()) + ending,
              ErrorKind::Problem);
}

}  // namespace

void run_pre_commit() {
  if (legacy_run_under_framework(std::filesystem::current_path(), "pre-commit")) return;
  PreCommitReport report;
  unless_unreadable([&] { report = run_pre_commit_hook(std::filesystem::current_path()); });
  for (const auto& w : report.warnings) std::cerr << "git-jpblob: warning: " << w << '\n';
  if (report.restored > 0)
    std::cerr << "git-jpblob: " << report.restored << " blob file" << (report.restored == 1 ? " was" : "s were")
              << " gone from .jp/blobs; written again from the copies kept in the git folder, and staged\n";
  if (!report.problems.empty()) refuse(report.problems, "commit refused");
}

}  // namespace jpblob

namespace jpblob {

void run_post_checkout() {
  unless_unreadable([&] {
    // Nothing to act on: a clone prints nothing of ours (GIT_TRACE shows it).
    if (auto line = run_post_checkout_hook(std::filesystem::current_path())) JPBLOB_TRACE(*line);
  });
}

namespace {

// The first problems, then the refusal with the way to mend it (refuse).
// Only commits the receiver does not hold yet are named
// (core/maintenance/push_check), so they can still be amended.
void refuse_push(const PushCheckReport& report) {
  if (report.problems.empty()) return;
  // A document committed without the filter has its own mend (the
  // problem's); repair is for the blobs.
  const bool blobs = std::any_of(report.problems.begin(), report.problems.end(),
                                 [](const Problem& p) { return p.kind != ProblemKind::Unfiltered; });
  refuse(report.problems, "push refused",
         blobs ? "`git jpblob repair` writes each blob named again from any good copy and stages it; then put it in "
                 "the commit named (`git commit --amend`, or `git rebase -i` and `git jpblob repair` at an older one) "
                 "and push again"
               : "");
}

// git-lfs's pre-push, when git-jpblob's hook took the place git-lfs's own
// would have (install/hook_folder: owes_git_lfs_pre_push), with git's
// arguments and input, as git-lfs's hook runs it; after git-jpblob's check,
// so that a refused push uploads nothing. Its output goes where a hook's
// goes, as it comes (progress included). `running`: the hook file of this
// run, pre-push or (under the pre-commit framework, which runs git-jpblob's
// hook first with git's arguments and input) pre-push.legacy.
void run_git_lfs_pre_push(const std::string& remote, const std::string& url, const std::string& updates,
                          const std::string& running) {
  const GitCli git(fs::current_path());
  const auto layout = git.layout();
  if (!layout) return;
  const HookFolder folder(layout->hooks, layout->top);
  // Set up by git-lfs (it writes the key to the repository's own config),
  // and not uninstalled since (`git lfs uninstall` leaves the key but
  // takes its filter away).
  const ConfigReader config = ConfigReader::through(git);
  const bool uses_git_lfs = ConfigReader::through(git, ConfigScope::Local).get("lfs.repositoryformatversion") &&
                            (config.get("filter.lfs.process") || config.get("filter.lfs.clean"));
  if (!owes_git_lfs_pre_push(folder, uses_git_lfs, running)) return;
  if (!find_on_path("git-lfs"))
    throw Error("this repository uses Git LFS (its config has lfs.repositoryformatversion and git-lfs's filter), "
                "and git-jpblob's pre-push hook runs git-lfs's, which sends the LFS objects the pushed commits "
                "point to; but git-lfs is not on PATH. Install git-lfs (or put it on PATH) and push again; push "
                "refused, as git-lfs's own hook would refuse it. A repository that no longer uses Git LFS: `git config "
                "--unset lfs.repositoryformatversion` (or, with git-lfs on PATH, `git lfs uninstall --local`)");
  std::vector<std::string> argv = {"git", "lfs", "pre-push", remote};
  if (!url.empty()) argv.push_back(url);
  const int status = stream_command(argv, layout->top, [](std::string_view text) {
    write_all(STDERR_FILENO, text, "standard error");
  }, updates);
  if (status != 0)
    throw Error("git-lfs's pre-push (run by git-jpblob's pre-push hook, in the place of git-lfs's own) exited " +
                std::to_string(status) + "; push refused");
}

}  // namespace

void run_pre_push(const std::string& remote_given, const std::string& url) {
  std::string updates = ::isatty(STDIN_FILENO) ? std::string() : read_all(STDIN_FILENO, "standard input");
  // Under the pre-commit framework, its run of git-jpblob's own hook
  // (pre-push.legacy) checked the push already, with all of git's input.
  const FrameworkPush framework = framework_push_run(std::filesystem::current_path());
  if (framework == FrameworkPush::AfterLegacy) return;
  std::string remote = remote_given;
  // Under the pre-commit framework git's standard input and arguments are
  // the framework's; it hands the push over in its environment instead.
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (remote.empty()) remote = env("PRE_COMMIT_REMOTE_NAME").empty() ? "origin" : env("PRE_COMMIT_REMOTE_NAME");
  std::string where = url.empty() ? env("PRE_COMMIT_REMOTE_URL") : url;
  if (where.empty()) where = remote;
  if (updates.empty() && !env("PRE_COMMIT_TO_REF").empty()) {
    // The framework's PRE_COMMIT_FROM_REF is the remote's id only for a
    // branch the remote has; for a new one it is what the remote-tracking
    // refs say, which may be stale. So it is not taken for the remote's
    // answer: the remote is asked (hooks/pre_push).
    updates = "HEAD " + env("PRE_COMMIT_TO_REF") + " refs/heads/pushed " +
              std::string(env("PRE_COMMIT_TO_REF").size(), '0') + "\n";
  } else if (updates.empty() && !env("PRE_COMMIT_LOCAL_BRANCH").empty()) {
    // A push that holds its root commit: the framework gives no range, only
    // the local ref, which is pushed whole (the remote holds none of it).
    const auto tip = GitCli(fs::current_path()).resolve_commit(env("PRE_COMMIT_LOCAL_BRANCH"));
    if (!tip) throw Error("cannot resolve " + env("PRE_COMMIT_LOCAL_BRANCH") + ", which the push sends; push refused");
    updates = env("PRE_COMMIT_LOCAL_BRANCH") + " " + *tip + " " + env("PRE_COMMIT_REMOTE_BRANCH") + " " +
              std::string(tip->size(), '0') + "\n";
  }
  unless_unreadable([&] { refuse_push(run_pre_push_hook(std::filesystem::current_path(), where, updates)); });
  run_git_lfs_pre_push(remote, url, updates, framework == FrameworkPush::Legacy ? "pre-push.legacy" : "pre-push");
}

void run_pre_receive() {
  const std::string updates = ::isatty(STDIN_FILENO) ? std::string() : read_all(STDIN_FILENO, "standard input");
  unless_unreadable([&] { refuse_push(run_pre_receive_hook(std::filesystem::current_path(), updates)); });
}

int run_merge_driver(const std::vector<std::string>& args) {
  int marker_size = 7;
  try {
    marker_size = std::stoi(args[3]);
  } catch (const std::exception&) {
    throw Error("merge: bad marker size '" + args[3] + "'", ErrorKind::Usage);
  }
  const std::string& path = args[4];
  std::optional<Workspace> opened;
  try {
    opened.emplace(Workspace::open(fs::current_path()));
  } catch (const UnsupportedRepository& e) {
    // git's own line merge, as if no driver were set: a conflict is shown
    // with git's markers, never one side dropped.
    std::cerr << "git-jpblob: warning: " << e.what() << "; " << path << " merged by git's line merge\n";
    const auto m = GitCli(fs::current_path()).merge_texts(read_file(args[1]), read_file(args[0]), read_file(args[2]),
                                                          marker_size);
    write_file_atomic(args[1], m.text);
    return m.conflict ? 1 : 0;
  }
  const Workspace& ws = *opened;
  for (const auto& w : ws.settings().warnings) std::cerr << "git-jpblob: warning: " << w << '\n';
  const MergeOutcome m =
      merge_file(ws, path, read_file(args[0]), read_file(args[1]), read_file(args[2]), marker_size);
  for (const auto& w : m.warnings) std::cerr << "git-jpblob: warning: " << w << '\n';
  write_file_atomic(args[1], m.content);
  // For the filter, while git replays several commits (sequence_record).
  if (const auto kind = document_kind_at(path); kind && !m.conflict && !is_store_path(path)) {
    try {
      note_merge_result(ws, path, *kind, m.content);
    } catch (const Error& e) {
      std::cerr << "git-jpblob: warning: " << e.what() << "; a later pick that changes " << path
                << " may stop, `git add` and `git rebase --continue` go on\n";
    }
  }
  // git tells an external driver nothing of -X ours / -X theirs: for a
  // merge no variable or file names it, and a rebase's own record of it
  // (rebase-merge/strategy_opts) is there too for a cherry-pick made by hand
  // while the rebase is stopped (docs/USING.md, "Merges"). So the driver cannot
  // honour them for certain: it says how to take one side whole instead.
  if (m.conflict)
    std::cerr << "git-jpblob: " << path << ": conflict, shown in JP's own form. To take one side whole (what -X ours "
              << "or -X theirs would do here): git checkout --ours -- " << path << " (or git checkout --theirs -- "
              << path << "), then git add " << path << "\n";
  return m.conflict ? 1 : 0;
}

}  // namespace jpblob
