// The maintenance work behind `git jpblob gc`, `verify` and `stats`
// (SPEC §7), built on the store and the reference code: nothing here parses
// references its own way.
//
// The live set is LevelDB's cleanup discipline: gather everything that is
// referenced, list the store, delete what is not referenced, and delete
// nothing at all after any error while gathering.
#pragma once

#include <cstdint>
#include <ctime>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "digest.hpp"
#include "document.hpp"
#include "workspace.hpp"

namespace jpblob {

// Reports progress of long work: (what, done, total).
using Progress = std::function<void(std::string_view, std::size_t, std::size_t)>;

// One file in a store's leaf folders.
struct StoreFile {
  std::filesystem::path path;
  std::optional<Digest> digest;  // set for <hex>.blob.gz files in the right folder
  bool temporary = false;        // a leftover temporary file of a killed writer
  std::uint64_t size = 0;
  std::time_t mtime = 0;
};

// Every file in the store's aa/bb folders; symlinks are not followed.
std::vector<StoreFile> list_store(const BlobStore& store);

struct LiveSet {
  std::unordered_set<Digest, DigestHash> digests;  // every blob something needs
  std::unordered_set<Digest, DigestHash> referenced;  // those named by an explicit reference
  std::size_t conversations = 0;  // documents (conversations, sessions) and staged versions read
};

// Calls fn(what, kind, text) for every document (conversation or session)
// the live set is built from (see below), on several threads at once: fn
// must be thread-safe. `what` names the file or staged version for
// messages. Throws Error on a file or object that cannot be read.
using DocumentFn = std::function<void(const std::string& what, DocumentKind kind, const std::string& text)>;
void for_each_document(const Workspace& ws, const DocumentFn& fn, const Progress& progress);

// Gathers the live set: every conversation and session in the work tree
// (.archive included), every staged version in the index (any file
// .gitattributes routes to the filter included), and in a repository with
// linked worktrees every other worktree's conversations and index. A work
// tree conversation counts with the blobs clean would write for its inline
// payloads. Throws Error naming the file on anything unreadable or
// unparseable: the caller must then delete nothing.
LiveSet build_live_set(const Workspace& ws, const Progress& progress);

struct GcOptions {
  bool dry_run = false;
  std::int64_t grace_seconds = 3600;  // --prune=<age>
};

struct GcReport {
  struct Removed {
    std::string path;  // relative to the workspace top
    std::uint64_t bytes;
  };
  std::vector<Removed> removed;      // blobs (and stale temporary files) deleted
  std::uint64_t bytes_freed = 0;
  std::size_t kept_live = 0;
  std::size_t kept_young = 0;        // unreferenced but younger than the grace period
  std::size_t conversations = 0;
  bool dry_run = false;
};

// Deletes unreferenced blobs older than the grace period, stale temporary
// files too, and removes deleted tracked blobs from the index. Each file's
// age is checked again just before it is deleted. Throws Error, having
// deleted nothing, when the live set cannot be built.
GcReport run_gc(const Workspace& ws, const GcOptions& options, const Progress& progress);

// Parses --prune ages: "now", "never", "<n>" seconds, "<n>s|m|h|d|w", or
// git's "<n>.<unit>[s][.ago]" (second, minute, hour, day, week). Throws a
// usage Error otherwise.
std::int64_t parse_age(const std::string& text);

struct VerifyReport {
  std::size_t blobs = 0;            // blob files checked
  std::size_t references = 0;       // references checked
  std::size_t commits = 0;          // commits checked with --history
  std::vector<std::string> problems;
  std::vector<std::string> unreferenced;  // gc candidates, relative paths
};

VerifyReport run_verify(const Workspace& ws, bool history, const Progress& progress);

struct StatsReport {
  std::size_t conversations = 0;
  std::size_t references = 0;         // explicit references in work tree conversations
  std::size_t inline_payloads = 0;    // payloads still inline in the work tree
  std::uint64_t inline_bytes = 0;     // their decoded size
  std::size_t unique_blobs = 0;       // blob files in the store
  std::uint64_t stored_bytes = 0;     // their gzip size
  std::uint64_t unique_bytes = 0;     // their uncompressed size (from the gzip trailers)
  std::uint64_t referenced_bytes = 0; // size of every payload, referenced or inline, duplicates counted
};

StatsReport run_stats(const Workspace& ws, const Progress& progress);

}  // namespace jpblob
