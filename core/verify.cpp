// verify and stats; the live set and gc are in maintenance.cpp.
#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <unordered_set>

#include "error.hpp"
#include "fs.hpp"
#include "maintenance.hpp"
#include "parallel.hpp"
#include "payload.hpp"
#include "subprocess.hpp"
#include "transform.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

std::string rel(const fs::path& p, const fs::path& top) { return p.lexically_relative(top).string(); }

// Paths and ids of the files under .jp in one commit: "mode type id\tpath".
std::map<std::string, std::string> tree_files(const fs::path& top, const std::string& commit) {
  auto r = run_command({"git", "ls-tree", "-r", "-z", "--full-tree", commit, "--", ".jp"}, top);
  if (r.status != 0) throw Error("cannot list commit " + commit + ": " + r.err);
  std::map<std::string, std::string> out;
  for (const std::string& line : split_records(r.out, '\0')) {
    const auto tab = line.find('\t');
    if (tab == std::string::npos || line.size() < 53) continue;
    out[line.substr(tab + 1)] = line.substr(tab - 40, 40);
  }
  return out;
}

void verify_history(const Workspace& ws, VerifyReport& report, const Progress& progress) {
  const fs::path top = *ws.repo()->workdir();
  auto revs = run_command({"git", "rev-list", "--all"}, top);
  if (revs.status != 0) return;  // no commits yet
  const std::vector<std::string> commits = split_records(revs.out, '\n');
  std::map<std::string, std::vector<BlobUse>> refs_of;  // document id -> references
  for (std::size_t i = 0; i < commits.size(); ++i) {
    const auto files = tree_files(top, commits[i]);
    for (const auto& [path, id] : files) {
      const bool conversation = path.starts_with(".jp/conversations/") && path.ends_with("/events.json");
      const bool session = path.starts_with(".jp/sessions/") && path.ends_with(".jsonl");
      if (!conversation && !session) continue;
      auto cached = refs_of.find(id);
      if (cached == refs_of.end()) {
        DocumentNeeds needs;
        std::string why;
        if (auto text = ws.repo()->read_object(id))
          document_needs(document_kind(path), *text, 0, needs, why);
        cached = refs_of.emplace(id, std::move(needs.references)).first;
      }
      for (const auto& ref : cached->second) {
        ++report.references;
        if (!files.count(".jp/blobs/" + blob_relative_path(ref.digest)))
          report.problems.push_back("commit " + commits[i].substr(0, 12) + ": " + path + " references blob " +
                                    ref.digest.hex() + ", which that commit does not contain");
      }
    }
    ++report.commits;
    if (progress) progress("Checking history", i + 1, commits.size());
  }
}

}  // namespace

VerifyReport run_verify(const Workspace& ws, bool history, const Progress& progress) {
  VerifyReport report;
  const fs::path top = ws.top();
  const auto files = list_store(ws.store());
  std::vector<const StoreFile*> blobs;
  std::unordered_set<Digest, DigestHash> present;
  for (const auto& f : files)
    if (f.digest) {
      blobs.push_back(&f);
      present.insert(*f.digest);
    }
  report.blobs = blobs.size();

  // 1. Every blob file: gzip, CRC and ISIZE, SHA-256 against its name.
  std::mutex mutex;
  std::map<Digest, std::uint64_t> sizes;
  std::atomic<std::size_t> done{0};
  parallel_for(blobs.size(), [&](std::size_t i) {
    const StoreFile& f = *blobs[i];
    std::string problem;
    std::uint64_t size = 0;
    try {
      std::error_code ec;
      if (!fs::exists(f.path, ec)) return;  // deleted since the listing: a gc ran
      const std::string raw = read_file(f.path, ws.store().options().max_blob_size * 2 + 1024);
      size = decode_blob(raw, *f.digest, std::nullopt, ws.store().options().max_blob_size, rel(f.path, top)).size();
    } catch (const Error& e) {
      problem = e.what();
    }
    std::lock_guard lock(mutex);
    if (problem.empty()) sizes[*f.digest] = size;
    else report.problems.push_back(problem);
    if (progress) progress("Verifying blobs", ++done, blobs.size());
  });

  // 2. Every reference in the work tree and the index resolves.
  std::set<std::string> staged_blobs;
  if (ws.repo() && ws.repo()->workdir() && top == *ws.repo()->workdir()) {
    auto r = run_command({"git", "ls-files", "-z", "--", ".jp/blobs"}, top);
    for (auto& path : split_records(r.out, '\0')) staged_blobs.insert(std::move(path));
  }
  LiveSet live;
  for_each_document(
      ws,
      [&](const std::string& what, DocumentKind kind, const std::string& text) {
        DocumentNeeds needs;
        std::string why;
        if (!document_needs(kind, text, 0, needs, why)) {
          std::lock_guard lock(mutex);
          report.problems.push_back(what + " is " + why.substr(0, why.find("; passing")));
          return;
        }
        std::lock_guard lock(mutex);
        for (const auto& p : needs.inline_payloads) live.digests.insert(p.digest);
        for (const auto& r : needs.references) {
          live.digests.insert(r.digest);
          ++report.references;
          const auto size = sizes.find(r.digest);
          const std::string path = ".jp/blobs/" + blob_relative_path(r.digest);
          if (size != sizes.end()) {
            if (r.size && size->second != *r.size)
              report.problems.push_back("blob " + r.digest.hex() + " referenced by " + what + " holds " +
                                        std::to_string(size->second) + " bytes, the reference declares " +
                                        std::to_string(*r.size));
          } else if (!staged_blobs.count(path) && !present.count(r.digest)) {
            report.problems.push_back("blob " + r.digest.hex() + " referenced by " + what + " is missing");
          }
        }
      },
      progress);

  // 3. Blobs nothing needs: gc candidates.
  for (const StoreFile* f : blobs)
    if (!live.digests.count(*f->digest)) report.unreferenced.push_back(rel(f->path, top));

  if (history && ws.repo() && ws.repo()->workdir()) verify_history(ws, report, progress);
  return report;
}

StatsReport run_stats(const Workspace& ws, const Progress& progress) {
  StatsReport s;
  std::mutex mutex;
  std::set<std::string> seen;
  for_each_document(
      ws,
      [&](const std::string& what, DocumentKind kind, const std::string& text) {
        if (what.ends_with("(staged)")) return;  // the work tree's view only
        DocumentNeeds needs;
        std::string why;
        if (!document_needs(kind, text, 0, needs, why)) return;
        std::lock_guard lock(mutex);
        ++s.conversations;
        s.references += needs.references.size();
        s.inline_payloads += needs.inline_payloads.size();
        // A session's blob: URLs declare no size; sessions count only what
        // they hold inline.
        for (const auto& r : needs.references) s.referenced_bytes += r.size.value_or(0);
        for (const auto& p : needs.inline_payloads) {
          s.referenced_bytes += p.size.value_or(0);
          s.inline_bytes += p.size.value_or(0);
        }
      },
      progress);
  for (const StoreFile& f : list_store(ws.store())) {
    if (!f.digest) continue;
    ++s.unique_blobs;
    s.stored_bytes += f.size;
    // ISIZE, the last four bytes of the gzip member: the uncompressed size
    // modulo 4 GiB, read without inflating.
    Fd fd(::open(f.path.c_str(), O_RDONLY | O_CLOEXEC));
    unsigned char tail[4];
    if (fd.valid() && f.size >= 4 && ::pread(fd.get(), tail, 4, static_cast<off_t>(f.size - 4)) == 4)
      s.unique_bytes += std::uint64_t(tail[0]) | std::uint64_t(tail[1]) << 8 | std::uint64_t(tail[2]) << 16 |
                        std::uint64_t(tail[3]) << 24;
  }
  return s;
}

}  // namespace jpblob
