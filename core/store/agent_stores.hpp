// The blob stores coding agents keep for themselves (docs/FORMAT.md, "Agent
// sessions"). oh-my-pi writes an image of its session as
// "blob:sha256:<hex>", the form git-jpblob commits, and keeps the bytes in
// its own store, one plain file a blob named by its digest:
// <agent dir>/blobs/<hex>. A session it wrote so references blobs that no
// clean stored; the pre-commit hook and `git jpblob repair` take them from
// here, so such a session commits with no extra command.
//
// Where oh-my-pi's store is (its getBlobsDir()): $PI_CODING_AGENT_DIR/blobs
// when that is set; $XDG_DATA_HOME/omp/blobs when that folder exists;
// else ~/.omp/agent/blobs (~/$PI_CONFIG_DIR/agent/blobs); a profile's own,
// ~/.omp/profiles/<name>/agent/blobs ($XDG_DATA_HOME/omp/profiles/<name>/blobs).
// Every folder that may be it is looked in, every profile's too: a blob is
// taken only when its bytes hash to its name, so looking in one folder too
// many can give nothing wrong.
//
// Read only: git-jpblob never writes or deletes in an agent's store. A
// teammate's checkout puts each image back inline in the work tree
// (core/documents/session_jsonl), which oh-my-pi loads as it loads any
// image it was never asked to store.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/format/digest.hpp"

namespace jpblob {

class AgentBlobStores {
 public:
  // The folders named by this process's environment, those that exist.
  static AgentBlobStores from_environment();
  explicit AgentBlobStores(std::vector<std::filesystem::path> folders) : folders_(std::move(folders)) {}

  const std::vector<std::filesystem::path>& folders() const { return folders_; }
  // The folders, for messages: "~/.omp/agent/blobs" and the like, or
  // "none found" when there are none.
  std::string describe() const;

  // The blob's bytes from the first folder holding a sound copy (a regular
  // file of at most `max_size` bytes whose SHA-256 is `digest`), or nullopt.
  // A copy that is not sound is passed over, and `problem`, when given,
  // says why (the last such). Never throws. Thread-safe.
  std::optional<std::string> fetch(const Digest& digest, std::uint64_t max_size,
                                   std::string* problem = nullptr) const;

 private:
  std::vector<std::filesystem::path> folders_;
};

}  // namespace jpblob
