// One resolver for every internal URL (SPEC §8):
//
//   artifact://<n>                 a session's tool output <n>.<tool>.log
//   agent://<id>                   a subagent's output <id>.md
//   agent://<id>/a/b/0             … with JSON extraction by path segments
//   agent://<id>?q=.a.b[0]['k']    … or by a query
//   blob:sha256:<hex>              a blob, through the blob store
//   {"$blob":"<hex>","size":N}     a conversation's reference, the same way
//
// Reads that extract nothing can be paged by lines: `offset` (1-based) and
// `limit`; the result then carries a notice saying how to continue.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/format/digest.hpp"

namespace jpblob {

struct PageOptions {
  std::optional<std::uint64_t> offset;  // first line, 1-based
  std::optional<std::uint64_t> limit;   // lines at most
};

struct ResolvedUrl {
  std::string content;
  std::string content_type;  // text/plain, text/markdown, application/json, application/octet-stream
  std::string notice;        // set when a page stops before the end: how to continue
};

// Blob bytes by digest (and declared size): verified, nullopt when absent.
using BlobFetch =
    std::function<std::optional<std::string>(const Digest& digest, std::optional<std::uint64_t> size)>;

class UrlResolver {
 public:
  // `artifacts_dir`: the current session's folder, when there is a session.
  // `blobs`: where blob: URLs and references resolve, when there is a store.
  UrlResolver(std::optional<std::filesystem::path> artifacts_dir, BlobFetch blobs)
      : artifacts_dir_(std::move(artifacts_dir)), blobs_(std::move(blobs)) {}

  // Throws Error with the messages of SPEC §8 ("No artifacts directory
  // found", "Artifact 7 not found. Available: 0, 1", "Not found: <id>…")
  // and a usage Error for a malformed URL, an invalid id or a bad query.
  ResolvedUrl resolve(std::string_view url, const PageOptions& page = {}) const;

  // From now on artifact:// answers "Artifact <n> expired: …" for an
  // artifact past `ttl` at time `now` (artifact_state); nullopt ttl is
  // never. Without this call, artifacts never expire. An artifact git
  // keeps (KeptByGit: tracked, or cited by a tracked session) is served
  // whatever its age, as `artifacts gc` leaves it.
  void set_artifact_expiry(std::optional<std::int64_t> ttl, std::int64_t now) { expiry_ = Expiry{ttl, now}; }

  // Whether `text` is something resolve() takes (rather than, say, a
  // bare digest).
  static bool is_url(std::string_view text);

 private:
  ResolvedUrl artifact(std::string_view rest, const PageOptions& page) const;
  ResolvedUrl agent(std::string_view rest, const PageOptions& page) const;
  ResolvedUrl blob(const Digest& digest, std::optional<std::uint64_t> size, const PageOptions& page) const;
  const std::filesystem::path& require_dir() const;

  std::optional<std::filesystem::path> artifacts_dir_;
  BlobFetch blobs_;
  struct Expiry {
    std::optional<std::int64_t> ttl;
    std::int64_t now;
  };
  std::optional<Expiry> expiry_;
};

// Lines [offset, offset + limit) of `text`, with the notice when lines
// remain after them. Throws a usage Error for offset 0, limit 0, or an
// offset past the last line.
ResolvedUrl page_lines(std::string text, const std::string& content_type, const PageOptions& page);

// Decodes %XX escapes; nullopt on a malformed escape or a NUL, raw or
// decoded.
std::optional<std::string> percent_decode(std::string_view text);

// Extracts from a JSON text: `segments` are object keys or array indexes
// in turn (the agent:// path form). A string result is its decoded text,
// anything else its JSON. Throws Error naming the step that fails.
std::string extract_json_path(std::string_view json, const std::vector<std::string>& segments);

// The same for a query: a chain of .key, [n] and ['key'].
std::string extract_json_query(std::string_view json, std::string_view query);

}  // namespace jpblob
