// The live set, the store listing and gc. verify and stats are in
// verify.cpp.
#include "maintenance.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <atomic>
#include <mutex>

#include "document.hpp"
#include "error.hpp"
#include "fs.hpp"
#include "parallel.hpp"
#include "payload.hpp"
#include "subprocess.hpp"
#include "transform.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

bool is_hex_name(const std::string& name, std::size_t len) {
  if (name.size() != len) return false;
  for (char c : name)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// Digests needed by one document; `what` names it for errors. Every
// payload counts whatever jpblob.minSize says: gc keeps anything it cannot
// prove unreferenced.
void add_needs(DocumentKind kind, const std::string& text, const std::string& what, LiveSet& live,
               std::mutex& mutex) {
  DocumentNeeds needs;
  std::string why;
  if (!document_needs(kind, text, 0, needs, why))
    throw Error("cannot build the live set: " + what + " is " + why.substr(0, why.find("; passing")));
  std::lock_guard lock(mutex);
  for (const auto& r : needs.references) {
    live.digests.insert(r.digest);
    live.referenced.insert(r.digest);
  }
  for (const auto& p : needs.inline_payloads) live.digests.insert(p.digest);
  ++live.conversations;
}

// Staged versions of documents in the index git would use in `top`.
std::vector<std::pair<std::string, std::string>> staged_documents(const fs::path& top) {
  std::vector<std::string> args = {"git", "ls-files", "--stage", "-z", "--"};
  args.insert(args.end(), document_pathspecs().begin(), document_pathspecs().end());
  auto r = run_command(args, top);
  if (r.status != 0) throw Error("cannot build the live set: cannot read the index in " + top.string() + ": " + r.err);
  std::vector<std::pair<std::string, std::string>> out;  // (id, path)
  for (const std::string& line : split_records(r.out, '\0')) {
    const auto tab = line.find('\t');
    if (tab == std::string::npos || line.size() < 48 || !line.starts_with("100")) continue;
    out.emplace_back(line.substr(7, 40), line.substr(tab + 1));
  }
  return out;
}

std::vector<fs::path> other_worktrees(const fs::path& top) {
  auto r = run_command({"git", "worktree", "list", "--porcelain", "-z"}, top);
  std::vector<fs::path> out;
  if (r.status != 0) return out;
  for (const std::string& field : split_records(r.out, '\0')) {
    if (field.starts_with("worktree ")) {
      const fs::path p = field.substr(9);
      std::error_code ec;
      if (!fs::equivalent(p, top, ec) && fs::exists(p, ec)) out.push_back(p);
    }
  }
  return out;
}

// Removes deleted blobs from the index, but only those it holds: touching
// the index takes its lock, and a user's git add or commit running beside
// gc must not fail for an untracked orphan. A held lock is waited for
// briefly, as git itself would be.
void unstage_deleted(const fs::path& top, const std::string& deleted) {
  std::vector<std::string> ls = {"git", "ls-files", "-z", "--"};
  for (auto& path : split_records(deleted, '\0')) ls.push_back(path);
  const auto tracked = run_command(ls, top);
  if (tracked.status != 0) throw Error("deleted the blobs but cannot read the index: " + tracked.err);
  if (tracked.out.empty()) return;
  for (int attempt = 0;; ++attempt) {
    auto r = run_command({"git", "update-index", "--force-remove", "-z", "--stdin"}, top, tracked.out);
    if (r.status == 0) return;
    if (attempt == 40 || r.err.find("index.lock") == std::string::npos)
      throw Error("deleted the blobs but cannot remove them from the index: " + r.err);
    ::usleep(50000);
  }
}

}  // namespace

std::vector<StoreFile> list_store(const BlobStore& store) {
  std::vector<StoreFile> out;
  Fd root(::open(store.root().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!root.valid()) {
    if (errno == ENOENT) return out;
    throw errno_error("cannot open blob store " + store.root().string(), errno);
  }
  for (const auto& a : folder_names(root.get(), store.root().string())) {
    if (!is_hex_name(a, 2)) continue;
    Fd level1(::openat(root.get(), a.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!level1.valid()) continue;  // a file or a symlink: not ours
    for (const auto& b : folder_names(level1.get(), a)) {
      if (!is_hex_name(b, 2)) continue;
      Fd leaf(::openat(level1.get(), b.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (!leaf.valid()) continue;
      for (const auto& name : folder_names(leaf.get(), a + "/" + b)) {
        struct stat st {};
        if (::fstatat(leaf.get(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        StoreFile f;
        f.path = store.root() / a / b / name;
        f.size = static_cast<std::uint64_t>(st.st_size);
        f.mtime = st.st_mtim.tv_sec;
        if (name.starts_with(AtomicFile::kTempPrefix)) {
          f.temporary = true;
        } else if (name.ends_with(".blob.gz") && is_hex_name(name.substr(0, name.size() - 8), 64) &&
                   name.compare(0, 2, a) == 0 && name.compare(2, 2, b) == 0) {
          f.digest = Digest::from_hex(name.substr(0, 64));
        } else {
          continue;  // something else: not ours to judge or delete
        }
        out.push_back(std::move(f));
      }
    }
  }
  return out;
}

void for_each_document(const Workspace& ws, const DocumentFn& fn, const Progress& progress) {
  const fs::path storage = ws.store().root().parent_path();
  struct Source {
    fs::path file;        // a work tree document, or
    const GitRepo* repo;  // a staged version by id
    std::string id, what;
    DocumentKind kind;
  };
  std::vector<Source> sources;
  auto add_files = [&](const fs::path& folder) {
    for (const auto& f : list_documents(folder))
      sources.push_back({f, nullptr, {}, f.string(), document_kind(f.string())});
  };
  add_files(storage);
  if (ws.repo() && ws.repo()->workdir() && storage == *ws.repo()->workdir() / ".jp") {
    const fs::path top = *ws.repo()->workdir();
    for (const auto& [id, path] : staged_documents(top))
      sources.push_back({{}, ws.repo(), id, path + " (staged)", document_kind(path)});
    for (const auto& wt : other_worktrees(top)) {
      add_files(wt / ".jp");
      for (const auto& [id, path] : staged_documents(wt))
        sources.push_back({{}, ws.repo(), id, (wt / path).string() + " (staged)", document_kind(path)});
    }
  }
  std::atomic<std::size_t> done{0};
  parallel_for(sources.size(), [&](std::size_t i) {
    const Source& s = sources[i];
    std::string text;
    if (s.repo) {
      auto content = s.repo->read_object(s.id);
      if (!content) throw Error(s.what + " is missing from git's objects");
      text = std::move(*content);
    } else {
      text = read_file(s.file);
    }
    fn(s.what, s.kind, text);
    if (progress) progress("Reading conversations", ++done, sources.size());
  });
}

LiveSet build_live_set(const Workspace& ws, const Progress& progress) {
  LiveSet live;
  std::mutex mutex;
  try {
    for_each_document(
        ws,
        [&](const std::string& what, DocumentKind kind, const std::string& text) {
          add_needs(kind, text, what, live, mutex);
        },
        progress);
  } catch (const Error& e) {
    const std::string why = e.what();
    if (why.starts_with("cannot build the live set")) throw;
    throw Error("cannot build the live set: " + why);
  }
  return live;
}

std::int64_t parse_age(const std::string& text) {
  if (text == "now") return 0;
  if (text == "never") return INT64_MAX;
  std::string t = text;
  if (t.ends_with(".ago")) t.resize(t.size() - 4);
  std::size_t digits = 0;
  while (digits < t.size() && t[digits] >= '0' && t[digits] <= '9') ++digits;
  if (digits == 0 || digits > 12) throw Error("bad age '" + text + "' (try 1.hour.ago, 2d or now)", ErrorKind::Usage);
  const std::int64_t n = std::stoll(t.substr(0, digits));
  std::string unit = t.substr(digits);
  if (!unit.empty() && unit[0] == '.') unit.erase(0, 1);
  if (unit.size() > 1 && unit.back() == 's') unit.pop_back();
  static const std::pair<const char*, std::int64_t> units[] = {
      {"", 1},          {"s", 1},     {"second", 1},     {"m", 60},  {"minute", 60},
      {"h", 3600},      {"hour", 3600}, {"d", 86400},    {"day", 86400},
      {"w", 604800},    {"week", 604800}};
  for (const auto& [name, seconds] : units)
    if (unit == name) return n * seconds;
  throw Error("bad age '" + text + "' (try 1.hour.ago, 2d or now)", ErrorKind::Usage);
}

GcReport run_gc(const Workspace& ws, const GcOptions& options, const Progress& progress) {
  GcReport report;
  report.dry_run = options.dry_run;
  const std::time_t now = ::time(nullptr);
  // List first, then gather: a blob written after the listing is not a
  // candidate at all, and one written before it is either in the live set
  // or young enough for the grace period.
  const auto files = list_store(ws.store());
  const LiveSet live = build_live_set(ws, progress);
  report.conversations = live.conversations;
  const fs::path top = ws.top();
  std::string unstage;
  for (const StoreFile& f : files) {
    if (f.digest && live.digests.count(*f.digest)) {
      ++report.kept_live;
      continue;
    }
    const bool old = options.grace_seconds != INT64_MAX && f.mtime + options.grace_seconds <= now;
    if (!old) {
      ++report.kept_young;
      continue;
    }
    if (!options.dry_run) {
      // Again, just before deleting: a clean may have used it meanwhile.
      struct stat st {};
      if (::lstat(f.path.c_str(), &st) != 0) continue;
      if (st.st_mtim.tv_sec + options.grace_seconds > ::time(nullptr)) {
        ++report.kept_young;
        continue;
      }
      if (::unlink(f.path.c_str()) != 0) {
        if (errno == ENOENT) continue;
        throw errno_error("cannot delete " + f.path.string(), errno);
      }
    }
    const std::string rel = f.path.lexically_relative(top).string();
    report.removed.push_back({rel, f.size});
    report.bytes_freed += f.size;
    if (f.digest) unstage.append(rel).push_back('\0');
  }
  if (!options.dry_run && !unstage.empty() && ws.repo() && ws.repo()->workdir() &&
      top == *ws.repo()->workdir())
    unstage_deleted(top, unstage);
  return report;
}

}  // namespace jpblob
