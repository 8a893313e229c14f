#include "commands.hpp"

#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/merge/merge.hpp"
#include "core/documents/render.hpp"
#include "core/store/restore_budget.hpp"
#include "core/workspace/workspace.hpp"
#include "hooks/pre_commit.hpp"
#include "hooks/post_checkout.hpp"
#include "hooks/pre_push.hpp"

namespace jpblob {

namespace fs = std::filesystem;

fs::path program_path() {
  std::error_code ec;
  fs::path self = fs::canonical("/proc/self/exe", ec);
  if (ec) throw Error("cannot find this program's own path: " + ec.message());
  return self;
}

void run_install(const InstallOptions& options) {
  if (auto warning = path_warning(options.program)) std::cerr << "git-jpblob: warning: " << *warning << '\n';
  for (const auto& line : install(fs::current_path(), options)) std::cout << line << '\n';
}

void run_uninstall(const InstallOptions& options) {
  for (const auto& line : uninstall(fs::current_path(), options)) std::cout << line << '\n';
}

void run_textconv(const fs::path& file) {
  const Workspace ws = Workspace::open(fs::current_path());
  const std::string bytes = read_file(file);
  const std::uint64_t max = ws.settings().store.max_blob_size;
  std::string shown;
  if (bytes.starts_with("\x1f\x8b")) {
    shown = render_blob_file(bytes, max);
  } else {
    try {
      shown = render_conversation(bytes, ws.blobs(), max, file.string());
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

void run_pre_commit() {
  const auto report = run_pre_commit_hook(std::filesystem::current_path());
  if (report.restored > 0)
    std::cerr << "git-jpblob: " << report.restored << " blob file" << (report.restored == 1 ? " was" : "s were")
              << " gone from .jp/blobs; written again from the copies kept in the git folder, and staged\n";
  if (report.problems.empty()) return;
  // Every problem on its own line; the last one is the one-line error.
  for (std::size_t i = 0; i + 1 < report.problems.size(); ++i)
    std::cerr << "git-jpblob: " << report.problems[i] << '\n';
  throw Error(report.problems.back() + (report.problems.size() > 1
                                            ? " (and " + std::to_string(report.problems.size() - 1) +
                                                  " more above); commit refused"
                                            : "; commit refused"));
}

}  // namespace jpblob

namespace jpblob {

void run_post_checkout(const std::string& previous) {
  if (auto line = run_post_checkout_hook(std::filesystem::current_path(), previous))
    std::cerr << "git-jpblob: " << *line << '\n';
}

void run_pre_push(const std::string& remote_given) {
  std::string updates = ::isatty(STDIN_FILENO) ? std::string() : read_all(STDIN_FILENO, "standard input");
  std::string remote = remote_given;
  // Under the pre-commit framework git's standard input and arguments are
  // the framework's; it hands the push over in its environment instead.
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (remote.empty()) remote = env("PRE_COMMIT_REMOTE_NAME").empty() ? "origin" : env("PRE_COMMIT_REMOTE_NAME");
  if (updates.empty() && !env("PRE_COMMIT_TO_REF").empty()) {
    const std::string from = env("PRE_COMMIT_FROM_REF").empty() ? std::string(40, '0') : env("PRE_COMMIT_FROM_REF");
    updates = "HEAD " + env("PRE_COMMIT_TO_REF") + " refs/heads/pushed " + from + "\n";
  }
  const auto report = run_pre_push_hook(std::filesystem::current_path(), remote, updates);
  if (report.problems.empty()) return;
  for (std::size_t i = 0; i + 1 < report.problems.size(); ++i)
    std::cerr << "git-jpblob: " << report.problems[i] << '\n';
  throw Error(report.problems.back() + (report.problems.size() > 1
                                            ? " (and " + std::to_string(report.problems.size() - 1) + " more above)"
                                            : std::string()) +
              "; push refused: commit the missing blobs (git jpblob verify --history lists them), "
              "or push with --no-verify to skip this check");
}

int run_merge_driver(const std::vector<std::string>& args) {
  const Workspace ws = Workspace::open(fs::current_path());
  int marker_size = 7;
  try {
    marker_size = std::stoi(args[3]);
  } catch (const std::exception&) {
    throw Error("merge: bad marker size '" + args[3] + "'", ErrorKind::Usage);
  }
  const std::string& path = args[4];
  const MergeOutcome m =
      merge_file(ws, path, read_file(args[0]), read_file(args[1]), read_file(args[2]), marker_size);
  write_file_atomic(args[1], m.content);
  if (m.conflict) std::cerr << "git-jpblob: " << path << ": conflict, shown in JP's own form\n";
  return m.conflict ? 1 : 0;
}

}  // namespace jpblob
