#include "maintenance_commands.hpp"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <iostream>
#include <set>
#include <nlohmann/json.hpp>

#include "cli/problem_list.hpp"
#include "cli/quiet.hpp"
#include "cli/progress.hpp"
#include "core/artifacts/artifact_lifetime.hpp"
#include "core/artifacts/artifacts.hpp"
#include "core/documents/conversations.hpp"
#include "core/documents/document.hpp"
#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/base/trace.hpp"
#include "core/artifacts/internal_url.hpp"
#include "core/git/expiry_date.hpp"
#include "core/maintenance/gc.hpp"
#include "core/maintenance/migrate.hpp"
#include "core/maintenance/purge_list.hpp"
#include "core/artifacts/output_spill.hpp"
#include "core/format/payload.hpp"
#include "core/format/reference.hpp"
#include "core/documents/render.hpp"
#include "core/maintenance/repair.hpp"
#include "core/maintenance/stats.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/subprocess.hpp"
#include "core/documents/transform.hpp"
#include "core/maintenance/verify.hpp"
#include "core/lean/kept_copies.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

Workspace open_workspace(const MaintenanceArgs& args) {
  Workspace ws = Workspace::open(fs::current_path(), args.store);
  for (const auto& w : ws.settings().warnings) std::cerr << "git-jpblob: warning: " << w << '\n';
  return ws;
}

std::string human(std::uint64_t bytes) {
  char buf[32];
  if (bytes >= (1u << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  else if (bytes >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(bytes) / 1024);
  else std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(bytes));
  return buf;
}

void print_json(const json& j) { std::cout << j.dump(2) << '\n'; }

}  // namespace

void run_gc_command(const MaintenanceArgs& args) {
  const Workspace ws = open_workspace(args);
  GcOptions options;
  options.dry_run = args.dry_run;
  // git's lifetime of an unreachable object unless --prune names another,
  // as `git gc` reads gc.pruneExpire and --prune.
  const bool given = !args.prune.empty();
  const std::string prune = given ? args.prune : prune_expire(ws);
  options.grace_seconds = expiry_age(prune, given ? "--prune" : "gc.pruneExpire", given ? ErrorKind::Usage
                                                                                       : ErrorKind::Failure)
                              .value_or(INT64_MAX);  // never: keep all
  JPBLOB_TRACE("gc: an unreferenced blob lives until " + prune + (given ? " (--prune)" : " (gc.pruneExpire)"));
  GcReport r;
  {
    TerminalProgress progress;
    r = run_gc(ws, options, progress.callback());
  }
  if (args.json) {
    json removed = json::array();
    for (const auto& x : r.removed) removed.push_back({{"path", x.path}, {"bytes", x.bytes}});
    print_json({{"dry_run", r.dry_run}, {"removed", removed}, {"bytes_freed", r.bytes_freed},
                {"kept_live", r.kept_live}, {"kept_young", r.kept_young}, {"conversations", r.conversations},
                {"retired_purged", r.retired_purged}, {"unfinished_packs", r.unfinished_packs},
                {"packs_released", r.packs_released}});
    return;
  }
  // -q: a dry run still names what it would remove, the rest is notes.
  if (r.dry_run || !quiet())
    for (const auto& x : r.removed) std::cout << (r.dry_run ? "would remove " : "removed ") << x.path << '\n';
  if (quiet()) return;
  std::cout << (r.dry_run ? "Would remove " : "Removed ") << r.removed.size() << " file(s), "
            << (r.dry_run ? "freeing " : "freed ") << human(r.bytes_freed) << "; kept " << r.kept_live
            << " referenced and " << r.kept_young << " younger than " << prune << ".\n";
  if (r.retired_purged)
    std::cout << "Deleted " << r.retired_purged << " kept copie(s) a commit had set aside (all committed).\n";
  if (r.packs_released)
    std::cout << (r.dry_run ? "Would hand " : "Handed ") << r.packs_released
              << " pack(s) of new blobs back to git's gc (each blob committed, or unreferenced and older than "
              << prune << ").\n";
  if (r.unfinished_packs)
    std::cout << (r.dry_run ? "Would delete " : "Deleted ") << r.unfinished_packs
              << " unfinished pack file(s) a killed commit left in git's objects (git never read them).\n";
}

void run_purge_retired(const std::string& common_dir) {
  // Started by a hook and not waited for: keep none of its descriptors
  // (a lock, a pipe someone reads to its end), and give way to what the
  // user runs next.
  ::close_range(3, ~0U, 0);
  [[maybe_unused]] const int niced = ::nice(10);
  std::error_code ec;
  const fs::path dir = fs::canonical(common_dir, ec);
  if (ec || !fs::is_directory(dir / "objects", ec) || !fs::is_directory(dir / "refs", ec) ||
      !fs::is_regular_file(dir / "HEAD", ec) || !fs::is_regular_file(dir / "config", ec))
    throw Error(common_dir + " is not a git folder (the common dir of a repository)", ErrorKind::Usage);
  KeptCopies::purge_retired(dir);
}

void run_verify_command(const MaintenanceArgs& args) {
  const Workspace ws = open_workspace(args);
  VerifyReport r;
  {
    TerminalProgress progress;
    r = run_verify(ws, args.history || !args.revisions.empty(), progress.callback(), args.revisions);
  }
  // Each distinct way to mend a problem once (a document committed without
  // the filter has its commands), as the refusals say them.
  std::vector<std::string> mends;
  for (const Problem& p : r.problems)
    if (!p.mend.empty() && std::find(mends.begin(), mends.end(), p.mend) == mends.end()) mends.push_back(p.mend);
  if (args.json) {
    std::vector<std::string> problems;  // every one: --json is for machines
    for (const Problem& p : r.problems) problems.push_back(p.line);
    print_json({{"ok", r.problems.empty()}, {"blobs", r.blobs}, {"references", r.references},
                {"commits", r.commits}, {"kept_copies", r.kept}, {"problems", problems}, {"mends", mends},
                {"unreferenced", r.unreferenced}, {"notes", r.notes}});
  } else {
    const ProblemList list = list_problems(r.problems);
    for (const auto& p : list.shown) std::cout << "problem: " << p << '\n';
    if (list.more) std::cout << list.rest << "; --json lists them all\n";
    for (const auto& m : mends) std::cout << "to mend: " << m << '\n';
    if (!quiet()) {
      for (const auto& n : r.notes) std::cout << "note: " << n << '\n';
      for (const auto& u : r.unreferenced) std::cout << "unreferenced (gc candidate): " << u << '\n';
    }
    std::string checked = std::to_string(r.blobs) + " blob(s)";
    if (r.kept) checked += ", " + std::to_string(r.kept) + " kept copy(ies)";
    if (!quiet())
      std::cout << "Checked " << checked << " and " << r.references << " reference(s)"
              << (args.history || !args.revisions.empty() ? " in " + std::to_string(r.commits) + " commit(s)" : std::string()) << ": "
              << (r.problems.empty() ? "all good" : std::to_string(r.problems.size()) + " problem(s)") << ".\n";
  }
  if (!r.problems.empty())
    throw Error("verify found " + std::to_string(r.problems.size()) + " problem(s)", ErrorKind::Problem);
}

// The document a `files` or `print` argument names, relative to the
// workspace's base: a session file (.jsonl), or a conversation by folder,
// events.json, id or handle.
fs::path resolve_document(const Workspace& ws, const std::string& name) {
  if (!ws.base()) throw Error("no conversation '" + name + "': " + ws.top().string() + " does not exist");
  const SafeDir& base = *ws.base();
  if (document_kind(name) == DocumentKind::Session) {
    const fs::path rel = fs::absolute(name).lexically_normal().lexically_relative(base.path());
    const auto st = !rel.empty() && *rel.begin() != ".." ? base.lstat(rel) : std::nullopt;
    if (st && S_ISREG(st->st_mode)) return rel;
  }
  return resolve_conversation(base, ws.storage(), fs::current_path(), name) / "events.json";
}

std::string read_document(const Workspace& ws, const fs::path& rel) {
  auto text = ws.base()->read(rel);
  if (!text) throw Error("cannot read " + rel.string() + ": it was removed");
  return std::move(*text);
}

void run_files_command(const MaintenanceArgs& args) {
  const Workspace ws = open_workspace(args);
  const fs::path document = resolve_document(ws, args.target);
  const DocumentKind kind = document_kind(document.string());
  auto show = [&](const fs::path& rel) {
    std::cout << fs::relative(ws.top() / rel, fs::current_path()).string() << '\n';
  };
  show(document);
  for (const DocumentType& type : document_types())
    if (type.kind == kind)
      for (const auto companion : type.companions)
        if (ws.base()->lstat(document.parent_path() / companion)) show(document.parent_path() / companion);
  const DocumentNeeds needs = document_needs(kind, read_document(ws, document), 0, ws.work_tree_form(document.string()));
  if (needs.unreadable) throw Error(document.string() + " is " + *needs.unreadable);
  // A lean work tree's blobs are outside its sparse patterns, where `git
  // add` refuses every path: the pre-commit hook stages them, so only the
  // documents are listed there.
  if (ws.lean()) return;
  std::set<Digest> seen;
  for (const auto* list : {&needs.references, &needs.inline_payloads})
    for (const auto& r : *list)
      if (seen.insert(r.digest).second && ws.store().contains(r.digest))
        show(ws.store().path_of(r.digest).lexically_relative(ws.top()));
}

void run_purge_list_command(const MaintenanceArgs& args) {
  const Workspace ws = open_workspace(args);
  PurgeList list;
  {
    TerminalProgress progress;
    list = run_purge_list(ws, args.targets, fs::current_path(), progress.callback());
  }
  if (args.json) {
    json shared = json::array();
    for (const auto& [path, other] : list.shared) shared.push_back({{"path", path}, {"also_needed_by", other}});
    print_json({{"paths", list.lines()}, {"folders", list.folders}, {"files", list.files},
                {"documents", list.documents}, {"blobs", list.blobs}, {"shared", shared}, {"commits", list.commits}});
    return;
  }
  for (const std::string& line : list.lines()) std::cout << line << '\n';
  std::cout.flush();
  // Standard output is the paths file; what stays is said beside it.
  if (list.shared.empty()) return;
  const bool one = list.shared.size() == 1;
  if (quiet()) return;
  std::cerr << "git-jpblob: note: " << list.shared.size() << (one ? " blob" : " blobs")
            << (args.targets.size() == 1 ? " it references " : " they reference ") << (one ? "stays" : "stay") << " in history, since other documents need "
            << (one ? "it" : "them") << " too (" << list.shared.front().first << " by " << list.shared.front().second
            << "); should " << (one ? "it" : "one") << " hold the secret, purge those documents as well"
            << (one ? "" : " (--json names each)") << "\n";
}

void run_print_command(const MaintenanceArgs& args) {
  const Workspace ws = open_workspace(args);
  if (!ws.base()) throw Error("no conversation '" + args.target + "': " + ws.top().string() + " does not exist");
  const fs::path document = resolve_conversation(*ws.base(), ws.storage(), fs::current_path(), args.target) / "events.json";
  write_all(STDOUT_FILENO,
            render_conversation(read_document(ws, document), ws.blobs(), ws.settings().store.max_blob_size,
                                document.string(), ws.settings().big_file_threshold),
            "standard output");
}

// A digest, or a unique prefix of 8+ hex characters of one in the store,
// as a blob: URL.
std::string blob_url_for_name(const Workspace& ws, const std::string& name) {
  std::string hex = name;
  if (hex.size() < 8 || hex.size() > 64 || hex.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw Error("'" + name + "' is not a blob name or internal URL: give artifact://<n>, agent://<id>, "
                "blob:sha256:<hex>, a digest, or 8+ hex characters of one",
                ErrorKind::Usage);
  if (hex.size() < 64) {
    // In the store, and among the blobs the index tracks (a lean work
    // tree's committed blobs have no file).
    std::set<Digest> matches;
    for (const Digest& d : ws.store().find_prefix(hex)) matches.insert(d);
    if (ws.in_work_tree())
      for (const IndexEntry& e : GitCli(ws.top()).index_entries(
               {literal_pathspec(tracked_blob_folder(hex))}))
        if (auto d = digest_of_tracked_path(e.path); d && d->hex().starts_with(hex)) matches.insert(*d);
    if (matches.empty()) throw Error("no blob starts with " + hex);
    if (matches.size() > 1) throw Error(hex + " is ambiguous: " + std::to_string(matches.size()) + " blobs start with it");
    hex = matches.begin()->hex();
  }
  return "blob:sha256:" + hex;
}

void run_cat_command(const MaintenanceArgs& args) {
  // The workspace is opened only when a blob is asked for: artifact:// and
  // agent:// need no repository.
  std::optional<Workspace> ws;
  auto workspace = [&]() -> const Workspace& {
    if (!ws) ws.emplace(open_workspace(args));
    return *ws;
  };
  const std::string url = UrlResolver::is_url(args.target) ? args.target : blob_url_for_name(workspace(), args.target);
  std::optional<fs::path> dir;
  if (args.session) dir = checked_artifacts_dir(*args.session, fs::current_path());
  UrlResolver resolver(dir, [&](const Digest& d, std::optional<std::uint64_t> size) {
    return workspace().find_blob(d, size);
  });
  if (dir && url.starts_with("artifact://"))
    resolver.set_artifact_expiry(configured_artifact_ttl(fs::current_path()), std::time(nullptr));
  const ResolvedUrl r = resolver.resolve(url, PageOptions{args.offset, args.limit});
  write_all(STDOUT_FILENO, r.content, "standard output");
  if (!r.notice.empty())
    write_all(STDOUT_FILENO, (r.content.empty() || r.content.ends_with('\n') ? "" : "\n") + r.notice + "\n",
              "standard output");
}

void run_store_command(const MaintenanceArgs& args) {
  const Workspace ws = open_workspace(args);
  const std::uint64_t limit = ws.settings().store.max_blob_size;
  json stored = json::array();
  for (const auto& file : args.files) {
    const std::string bytes = read_file(file, limit);
    const auto put = ws.new_blobs().put_in_work_tree(Sha256::of(bytes), bytes);
    if (args.json)
      stored.push_back({{"file", file.string()}, {"url", format_blob_url(put.digest)}, {"size", bytes.size()},
                        {"written", put.written}});
    else
      std::cout << format_blob_url(put.digest) << "  " << file.string() << '\n';
  }
  if (args.json) print_json({{"stored", stored}});
}

void run_migrate_command(const MaintenanceArgs& args) {
  const Workspace ws = open_workspace(args);
  MigrateReport r;
  {
    TerminalProgress progress;
    r = run_migrate(ws, args.dry_run, progress.callback());
  }
  for (const auto& f : r.skipped) std::cerr << "git-jpblob: warning: skipped " << f << '\n';
  if (args.json) {
    print_json({{"dry_run", args.dry_run}, {"rewritten", r.rewritten}, {"skipped", r.skipped}, {"unchanged", r.unchanged}});
    return;
  }
  if (args.dry_run || !quiet())
    for (const auto& f : r.rewritten) std::cout << (args.dry_run ? "would rewrite " : "rewrote ") << f << '\n';
  if (quiet()) return;
  std::cout << (args.dry_run ? "Would rewrite " : "Rewrote ") << r.rewritten.size() << " conversation(s); "
            << r.unchanged << " already migrated.\n";
}

void run_repair_command(const MaintenanceArgs& args) {
  const Workspace ws = open_workspace(args);
  RepairReport r;
  {
    TerminalProgress progress;
    r = run_repair(ws, progress.callback());
  }
  if (args.json) {
    print_json({{"checked", r.checked}, {"repaired", r.repaired}, {"unrecoverable", r.unrecoverable}});
  } else {
    if (!quiet())
      for (const auto& p : r.repaired) std::cout << "repaired " << p << '\n';
    for (const auto& p : r.unrecoverable) std::cout << "cannot repair " << p << '\n';
    if (!quiet())
      std::cout << "Checked " << r.checked << " blob(s): repaired " << r.repaired.size() << ", "
              << r.unrecoverable.size() << " without a good copy.\n";
  }
  if (!r.unrecoverable.empty())
    throw Error(std::to_string(r.unrecoverable.size()) + " blob(s) have no good copy anywhere", ErrorKind::Problem);
}

void run_checkout_command(const MaintenanceArgs& args) {
  const Workspace ws = open_workspace(args);
  if (!ws.in_work_tree()) throw Error("checkout must run in a git work tree");
  if (ws.settings().smudge_refs_only) {
    if (!quiet()) std::cout << "Nothing to do: jpblob.smudge=refs (or JPBLOB_SKIP_SMUDGE) keeps the reference form here.\n";
    return;
  }
  // Paths as given, relative to the current folder, made relative to the top.
  std::vector<std::string> paths;
  for (const fs::path& p : args.files) {
    const fs::path rel = fs::absolute(p).lexically_normal().lexically_relative(ws.top());
    if (rel.empty() || *rel.begin() == "..") throw Error(p.string() + " is outside the work tree " + ws.top().string());
    std::string r = rel.string();
    while (r.size() > 1 && r.back() == '/') r.pop_back();
    paths.push_back(r);
  }
  CheckoutReport r;
  {
    TerminalProgress progress;
    r = run_checkout(ws, paths, args.dry_run, progress.callback());
  }
  for (const auto& p : r.problems) std::cerr << "git-jpblob: " << p << '\n';
  if (args.json) {
    print_json({{"dry_run", args.dry_run}, {"restored", r.restored}, {"unchanged", r.unchanged},
                {"problems", r.problems}});
  } else {
    if (args.dry_run || !quiet())
      for (const auto& f : r.restored) std::cout << (args.dry_run ? "would restore " : "restored ") << f << '\n';
    if (!quiet())
      std::cout << (args.dry_run ? "Would restore " : "Restored ") << r.restored.size()
              << " document(s) to JP's form; " << r.unchanged << " already were.\n";
  }
  if (!r.problems.empty())
    throw Error(std::to_string(r.problems.size()) + " document(s) could not be restored (see above)", ErrorKind::Problem);
}

void run_stats_command(const MaintenanceArgs& args) {
  const Workspace ws = open_workspace(args);
  StatsReport s;
  {
    TerminalProgress progress;
    s = run_stats(ws, progress.callback());
  }
  if (args.json) {
    print_json({{"conversations", s.conversations}, {"references", s.references},
                {"inline_payloads", s.inline_payloads}, {"inline_bytes", s.inline_bytes},
                {"unique_blobs", s.unique_blobs}, {"stored_bytes", s.stored_bytes},
                {"unique_bytes", s.unique_bytes}, {"referenced_bytes", s.referenced_bytes},
                {"stored_payloads", s.stored_payloads}, {"stored_payload_bytes", s.stored_payload_bytes},
                {"stored_payload_unique_bytes", s.stored_payload_unique_bytes},
                {"unstored_payloads", s.unstored_payloads}, {"unstored_bytes", s.unstored_bytes},
                {"dedup_saved_bytes", s.dedup_saved_bytes()},
                {"compression_saved_bytes", s.compression_saved_bytes()}});
    return;
  }
  std::cout << "conversations:     " << s.conversations << '\n'
            << "payloads:          " << s.references + s.inline_payloads << " (" << human(s.referenced_bytes)
            << "): " << s.references << " referenced, " << s.inline_payloads << " inline ("
            << human(s.inline_bytes) << ")\n"
            << "  in the store:    " << s.stored_payloads << " (" << human(s.stored_payload_bytes) << ")\n"
            << "  not stored yet:  " << s.unstored_payloads << " (" << human(s.unstored_bytes) << ")\n"
            << "unique blobs:      " << s.unique_blobs << " (" << human(s.unique_bytes) << " uncompressed, "
            << human(s.stored_bytes) << " stored as gzip)\n"
            << "saved by dedup:    " << human(s.dedup_saved_bytes()) << '\n'
            << "saved by gzip:     " << human(s.compression_saved_bytes()) << '\n';
}

}  // namespace jpblob
