#include "cli/artifact_commands.hpp"

#include <unistd.h>

#include <ctime>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/quiet.hpp"
#include "core/artifacts/artifact_lifetime.hpp"
#include "core/artifacts/artifacts.hpp"
#include "core/artifacts/kept_by_git.hpp"
#include "core/artifacts/output_index.hpp"
#include "core/artifacts/output_spill.hpp"
#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/git/subprocess.hpp"

namespace jpblob {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

void print(const json& j) {
  // Command output need not be UTF-8: bad bytes become U+FFFD, never an error.
  std::cout << j.dump(2, ' ', false, json::error_handler_t::replace) << '\n';
}

}  // namespace

int run_run_command(const MaintenanceArgs& args) {
  if (!args.session) throw Error("run needs --session <file.jsonl>", ErrorKind::Usage);
  const fs::path dir = checked_artifacts_dir(*args.session, fs::current_path());
  ArtifactAllocator artifacts(dir);
  if (!is_valid_name(args.tool))
    throw Error("bad tool name '" + args.tool + "': use 1-64 letters, digits, '_' or '-'", ErrorKind::Usage);
  if (args.threshold == 0) throw Error("--threshold must be at least 1 byte", ErrorKind::Usage);
  OutputSpill sink([&] { return artifacts.allocate(args.tool); }, args.threshold);
  // On a terminal a person watches: show the output as it comes. Otherwise
  // (an agent reading the result) print the tail once the command ends.
  const bool live = !args.json && ::isatty(STDOUT_FILENO) == 1;
  char last = '\n';
  std::string head;  // enough of the start for the summary: 200 characters of at most 4 bytes
  const int status = stream_command(args.command, fs::current_path(), [&](std::string_view s) {
    sink.write(s);
    if (head.size() < 4 * kSummaryChars) head.append(s.substr(0, 4 * kSummaryChars - head.size()));
    if (live && !s.empty()) {
      write_all(STDOUT_FILENO, s, "standard output");
      last = s.back();
    }
  });
  const SpillSummary summary = sink.finish();
  const std::string summary_text = summarize_output(head);
  std::string problem = summary.problem;
  if (summary.artifact_id) {
    try {
      record_output(dir, std::stoull(*summary.artifact_id),
                    {args.tool, summary.total_bytes, static_cast<std::int64_t>(std::time(nullptr)), summary_text});
    } catch (const Error& e) {
      // The output itself is saved; only its line in the index is missing.
      std::cerr << "git-jpblob: warning: artifact://" << *summary.artifact_id << " is not in the index: " << e.what()
                << '\n';
    }
  }
  if (args.json) {
    const bool saved = summary.artifact_id && summary.problem.empty();
    json j = {{"artifact_reference", saved ? json("artifact://" + *summary.artifact_id) : json(nullptr)},
              {"summary", summary_text},
              {"hint", saved ? json("Read it with: git jpblob cat artifact://" + *summary.artifact_id + " --session " +
                                    shell_quote(args.session->string()) +
                                    " --offset 1 --limit 1000 (each page ends naming the next --offset)")
                             : json(nullptr)},
              {"size_bytes", summary.total_bytes},
              {"exit_status", status}};
    if (!saved) j["output"] = summary.tail;
    if (!problem.empty()) j["problem"] = problem;
    print(j);
    return status;
  }
  if (!live) {
    write_all(STDOUT_FILENO, summary.tail, "standard output");
    if (!summary.tail.empty()) last = summary.tail.back();
  }
  if (summary.truncated)
    write_all(STDOUT_FILENO, (last == '\n' ? "" : "\n") + describe_spill(summary, live) + "\n", "standard output");
  return status;
}

namespace {

void print_gc_report(const MaintenanceArgs& args, const CleanupReport& r, bool expired,
                     std::optional<std::int64_t> ttl) {
  if (args.json) {
    json removed = json::array(), folders = json::array(), kept = json::array();
    for (const auto& p : r.removed) removed.push_back(p.string());
    for (const auto& p : r.removed_folders) folders.push_back(p.string());
    for (const auto& k : r.kept) kept.push_back({{"path", k.path.string()}, {"why", k.why}});
    print({{"dry_run", args.dry_run},
           {"ttl_seconds", ttl ? json(*ttl) : json(nullptr)},
           {"removed", removed},
           {"removed_bytes", r.removed_bytes},
           {"removed_folders", folders},
           {"kept", kept},
           {"skipped", r.skipped}});
    return;
  }
  const char* verb = args.dry_run ? "would remove " : "removed ";
  // -q: a dry run still names what it would remove, the rest is notes.
  if (args.dry_run || !quiet()) {
    for (const auto& p : r.removed) std::cout << verb << p.string() << '\n';
    for (const auto& p : r.removed_folders) std::cout << "removed folder " << p.string() << '\n';
  }
  if (quiet()) return;
  for (const auto& k : r.kept) std::cout << "kept " << k.path.string() << ": " << k.why << '\n';
  std::cout << (args.dry_run ? "Would remove " : "Removed ") << r.removed.size() << " file(s), "
            << r.removed_bytes << " bytes";
  if (expired) std::cout << " (artifacts older than " << describe_ttl(ttl) << ", and orphaned folders)";
  std::cout << ".\n";
  if (!r.kept.empty())
    std::cout << "Kept " << r.kept.size() << " file(s) that git tracks or a tracked session cites.\n";
}

}  // namespace

void run_artifacts_gc_command(const MaintenanceArgs& args) {
  const fs::path cwd = fs::current_path();
  const bool expired = args.expired || !args.session;
  const DryRun dry = args.dry_run ? DryRun::Yes : DryRun::No;
  const std::optional<std::int64_t> ttl = expired ? configured_artifact_ttl(cwd) : std::nullopt;
  const auto now = static_cast<std::int64_t>(std::time(nullptr));
  CleanupReport r;
  fs::path top;
  const fs::path root = sessions_root(cwd, top);
  std::optional<fs::path> dir;
  bool under_root = false;
  if (args.session) {
    dir = checked_artifacts_dir(*args.session, cwd);
    std::error_code ec;
    under_root = fs::weakly_canonical(fs::absolute(*dir).parent_path(), ec) == fs::weakly_canonical(root, ec);
  }
  // What git keeps, asked once for every folder cleaned: before anything
  // is removed, so that a failing git removes nothing.
  std::vector<fs::path> scope;
  if (dir) scope.insert(scope.end(), {*dir, session_file_of(*dir)});
  if (expired) scope.push_back(root);
  const KeptByGit kept = KeptByGit::ask(scope);
  if (dir && !expired)
    cleanup_session(*dir, kept, dry, r);
  else if (dir && !under_root)  // the sweep of the root below covers it
    cleanup_expired(*dir, kept, ttl, now, dry, r);
  if (expired) cleanup_expired_root(top, root, kept, ttl, now, dry, r);
  for (const auto& s : r.skipped) std::cerr << "git-jpblob: warning: " << s << '\n';
  print_gc_report(args, r, expired, ttl);
}

void run_artifacts_stats_command(const MaintenanceArgs& args) {
  const fs::path cwd = fs::current_path();
  ArtifactStats s;
  if (args.session) {
    add_folder_stats(checked_artifacts_dir(*args.session, cwd), s);
  } else {
    fs::path top;
    const fs::path root = sessions_root(cwd, top);
    add_root_stats(top, root, s);
  }
  for (const auto& w : s.skipped) std::cerr << "git-jpblob: warning: " << w << '\n';
  if (args.json) {
    json tools = json::object();
    for (const auto& [tool, t] : s.tools) tools[tool] = {{"count", t.count}, {"bytes", t.bytes}};
    print({{"artifact_count", s.artifact_count}, {"total_bytes", s.total_bytes}, {"sessions", s.sessions},
           {"tools", tools}});
    return;
  }
  std::cout << "artifacts: " << s.artifact_count << " (" << s.total_bytes << " bytes) in " << s.sessions
            << " session folder(s)\n";
  for (const auto& [tool, t] : s.tools) std::cout << "  " << tool << ": " << t.count << " (" << t.bytes << " bytes)\n";
}

}  // namespace jpblob
