// `git jpblob purge-list <conversation>...`: the paths a history rewrite
// must drop so that a leaked conversation (or session) leaves no byte
// behind, in the form `git filter-repo --invert-paths --paths-from-file`
// reads (README, "Removing a leaked conversation from history").
//
// Dropping the conversation's folder alone leaves its payloads in every
// commit: they are blob files under .jp/blobs, which the folder's
// events.json only names. The list adds the blob files the conversation
// names in any version of it, in any commit reachable from any ref, except
// those another document still needs (in any commit, an index, a work tree,
// a stash entry or an operation in progress): those are not the leak's
// alone, and dropping them would break the documents that stay.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/base/progress.hpp"
#include "core/format/digest.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

// What the names given resolve to, as repository paths ('/'-separated,
// relative to the top).
struct PurgeTarget {
  std::vector<std::string> files;    // documents named as files (sessions)
  std::vector<std::string> folders;  // folders whose every file goes (no trailing '/')
  // True when `path` is one of `files` or lies below one of `folders`.
  bool holds(std::string_view path) const;
};

// Resolves each name as `git jpblob files` reads it — a conversation's
// folder or events.json (relative to `cwd`), its id ("17758406187") or
// handle ("jp-c17758406187"), a session's .jsonl — against `known`: every
// file below the document roots in history, and every document of the work
// trees and indexes. A conversation is every folder its id has had (a
// renamed slug, an archived copy): by id, or by a folder named
// "<id>[-<slug>]". A session brings its artifact folder (FORMAT.md,
// "Artifact folders") when `known` holds a file there. Throws Error (usage,
// as `files` does for a name it cannot find) naming the first name that
// matches nothing.
PurgeTarget resolve_purge_target(const std::vector<std::string>& names, const std::unordered_set<std::string>& known,
                                 const std::filesystem::path& top, const std::filesystem::path& cwd);

// One version of a document, every path it was found at, and the blobs it
// keeps alive by gc's rule: its references, what clean would store of its
// inline payloads, and the digests its literal objects name.
struct DocumentBlobs {
  std::vector<std::string> paths;
  std::vector<Digest> digests;
};

struct BlobSplit {
  std::vector<Digest> purge;  // kept alive at a path the target holds and at no other, sorted
  // Kept alive by the target and by another document too: they stay. The
  // other document is one path that needs the blob.
  std::vector<std::pair<Digest, std::string>> shared;
};

// The rule itself: a blob goes when a version at a path the target holds
// needs it and no version at any other path does.
BlobSplit split_blobs(const std::vector<DocumentBlobs>& versions, const PurgeTarget& target);

// The line of a filter-repo paths file that names exactly `path` (and, as
// filter-repo reads every plain line, everything below it; a folder ends in
// '/'). Plain where filter-repo reads the line literally; `literal:` before
// a path that would read as a comment or a prefix; a `regex:` line for one
// that no literal line can hold (a line break, or "==>", which filter-repo
// reads as a rename).
std::string filter_repo_line(std::string_view path);

struct PurgeList {
  std::vector<std::string> folders;    // the targets' folders, each ending in '/'
  std::vector<std::string> files;      // the targets' documents named as files (sessions)
  std::vector<std::string> documents;  // every path a version of the targets was found at
  std::vector<std::string> blobs;      // tracked blob paths (.jp/blobs/aa/bb/<h>.blob.gz) only the targets need
  // Tracked blob paths the targets need that stay, each with one other
  // document that needs it.
  std::vector<std::pair<std::string, std::string>> shared;
  std::size_t commits = 0;  // commits reachable from any ref, whose trees were read
  // The paths file: filter_repo_line of the folders, the files, then the blobs.
  std::vector<std::string> lines() const;
};

// Reads the trees of every commit reachable from any ref (each folder once
// however many commits hold it unchanged), every document of the work
// trees, indexes, stash entries and operations in progress, resolves
// `names` (resolve_purge_target), then reads each document version in
// history once and splits the blobs (split_blobs). Throws Error when `ws`
// has no repository, a name matches nothing (before any version is read),
// or a version cannot be read (a partial clone: filter-repo needs every
// object anyway), so that no list is ever made from part of the history.
PurgeList run_purge_list(const Workspace& ws, const std::vector<std::string>& names, const std::filesystem::path& cwd,
                         const Progress& progress);

}  // namespace jpblob
