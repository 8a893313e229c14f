#include "core/artifacts/internal_url.hpp"

#include <algorithm>

#include "core/artifacts/artifact_lifetime.hpp"
#include "core/artifacts/artifacts.hpp"
#include "core/artifacts/kept_by_git.hpp"
#include "core/base/error.hpp"
#include "core/format/json_scan.hpp"
#include "core/format/reference.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

struct Step {
  bool is_index;
  std::string key;  // for an index taken from a path segment: its text too
  std::uint64_t index = 0;
};

std::string describe(const std::vector<Step>& steps, std::size_t n) {
  std::string out;
  for (std::size_t i = 0; i < n; ++i)
    out += steps[i].is_index ? "[" + std::to_string(steps[i].index) + "]" : "." + steps[i].key;
  return out.empty() ? "the top" : out;
}

std::string join(const std::vector<std::string>& items) {
  if (items.empty()) return "none";
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string extract(std::string_view json, const std::vector<Step>& steps) {
  JsonError error;
  auto tree = parse_json(json, error);
  if (!tree) throw Error("the output is not valid JSON (" + error.message + "), so nothing can be extracted from it");
  std::uint32_t at = tree->root();
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const JsonNode& n = tree->node(at);
    const Step& s = steps[i];
    // A numeric path segment indexes an array, or names a key of an object.
    if (s.is_index && !(n.kind == JsonKind::Object && !s.key.empty())) {
      if (n.kind != JsonKind::Array) throw Error("cannot index " + describe(steps, i) + ": it is not an array");
      std::uint32_t c = n.first_child;
      for (std::uint64_t k = 0; k < s.index && c != kNoNode; ++k) c = tree->node(c).next_sibling;
      if (c == kNoNode)
        throw Error("no element " + std::to_string(s.index) + " in " + describe(steps, i) + " (it holds " +
                    std::to_string(tree->child_count(at)) + ")");
      at = c;
    } else {
      if (n.kind != JsonKind::Object) throw Error("cannot take '" + s.key + "' of " + describe(steps, i) + ": it is not an object");
      const auto m = tree->member(at, s.key);
      if (m == kNoNode) throw Error("no key '" + s.key + "' in " + describe(steps, i));
      at = m;
    }
  }
  if (tree->node(at).kind == JsonKind::String)
    if (auto text = tree->string_value(at)) return *text;
  return std::string(tree->span(at));
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::uint64_t to_index(std::string_view s, const std::string& what) {
  if (!all_digits(s) || s.size() > 18) throw Error("bad array index '" + std::string(s) + "' in " + what, ErrorKind::Usage);
  return std::stoull(std::string(s));
}

std::vector<Step> parse_query(std::string_view q) {
  std::vector<Step> steps;
  const std::string what = "query '" + std::string(q) + "'";
  auto bad = [&](std::size_t at, const char* expected) {
    return Error("bad " + what + " at character " + std::to_string(at + 1) + ": expected " + expected,
                 ErrorKind::Usage);
  };
  std::size_t i = 0;
  if (q == ".") return steps;
  while (i < q.size()) {
    if (q[i] == '.') {
      std::size_t j = i + 1;
      while (j < q.size() && q[j] != '.' && q[j] != '[') ++j;
      if (j == i + 1) throw bad(i + 1, "a key after '.'");
      steps.push_back({false, std::string(q.substr(i + 1, j - i - 1))});
      i = j;
    } else if (q[i] == '[') {
      if (i + 1 < q.size() && (q[i + 1] == '\'' || q[i + 1] == '"')) {
        const char quote = q[i + 1];
        const auto close = q.find(quote, i + 2);
        if (close == std::string_view::npos || close + 1 >= q.size() || q[close + 1] != ']')
          throw bad(i, "['key']");
        steps.push_back({false, std::string(q.substr(i + 2, close - i - 2))});
        i = close + 2;
      } else {
        const auto close = q.find(']', i);
        if (close == std::string_view::npos) throw bad(i, "']'");
        steps.push_back({true, {}, to_index(q.substr(i + 1, close - i - 1), what)});
        i = close + 1;
      }
    } else {
      throw bad(i, ".key, [n] or ['key']");
    }
  }
  return steps;
}

}  // namespace

std::optional<std::string> percent_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\0') return std::nullopt;
    if (text[i] != '%') {
      out.push_back(text[i]);
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int h = hex(text[i + 1]), l = hex(text[i + 2]);
    if (h < 0 || l < 0) return std::nullopt;
    const char c = static_cast<char>(h * 16 + l);
    if (c == '\0') return std::nullopt;
    out.push_back(c);
    i += 2;
  }
  return out;
}

std::string extract_json_path(std::string_view json, const std::vector<std::string>& segments) {
  std::vector<Step> steps;
  for (const auto& s : segments) {
    if (all_digits(s) && s.size() <= 18) steps.push_back({true, s, std::stoull(s)});
    else steps.push_back({false, s});
  }
  return extract(json, steps);
}

std::string extract_json_query(std::string_view json, std::string_view query) {
  return extract(json, parse_query(query));
}

ResolvedUrl page_lines(std::string text, const std::string& content_type, const PageOptions& page) {
  ResolvedUrl out{std::move(text), content_type, {}};
  if (!page.offset && !page.limit) return out;
  const std::uint64_t offset = page.offset.value_or(1);
  if (offset == 0) throw Error("offset counts lines from 1", ErrorKind::Usage);
  if (page.limit && *page.limit == 0) throw Error("limit must be at least 1", ErrorKind::Usage);
  // One pass, counting lines (a final line without a newline counts) and
  // noting where the page begins and ends: no table of every line's start,
  // which for a blob of newlines would take eight bytes a byte.
  const std::string& text_ref = out.content;
  const std::uint64_t wanted_last = page.limit ? offset - 1 + *page.limit : UINT64_MAX;  // 1-based, inclusive
  std::uint64_t total = text_ref.empty() ? 0 : 1;
  std::size_t begin = offset == 1 ? 0 : text_ref.size(), end = text_ref.size();
  for (std::size_t i = 0; i + 1 < text_ref.size(); ++i) {
    if (text_ref[i] != '\n') continue;
    ++total;  // line `total` starts at i + 1
    if (total == offset) begin = i + 1;
    if (total == wanted_last + 1) end = i + 1;
  }
  if (offset > total)
    throw Error("offset " + std::to_string(offset) + " is past the end (" + std::to_string(total) + " lines)",
                ErrorKind::Usage);
  const std::uint64_t last = std::min(total, wanted_last);
  out.content = out.content.substr(begin, end - begin);
  if (last < total)
    out.notice = "[Showing lines " + std::to_string(offset) + "-" + std::to_string(last) + " of " +
                 std::to_string(total) + ". Use --offset " + std::to_string(last + 1) + " to continue.]";
  return out;
}

bool UrlResolver::is_url(std::string_view text) {
  return text.starts_with("artifact://") || text.starts_with("agent://") || text.starts_with("blob:") ||
         text.starts_with("{");
}

const fs::path& UrlResolver::require_dir() const {
  std::error_code ec;
  if (!artifacts_dir_ || !fs::is_directory(*artifacts_dir_, ec)) throw Error("No artifacts directory found");
  return *artifacts_dir_;
}

ResolvedUrl UrlResolver::resolve(std::string_view url, const PageOptions& page) const {
  if (url.starts_with("artifact://")) return artifact(url.substr(11), page);
  if (url.starts_with("agent://")) return agent(url.substr(8), page);
  if (url.starts_with("blob:")) {
    auto digest = parse_blob_url(url);
    if (!digest)
      throw Error("'" + std::string(url) + "' is not a blob URL: give blob:sha256:<64 lowercase hex>", ErrorKind::Usage);
    return blob(*digest, std::nullopt, page);
  }
  if (url.starts_with("{")) {
    auto ref = parse_reference_json(url);
    if (!ref) throw Error("'" + std::string(url.substr(0, 80)) + "' is not a blob reference", ErrorKind::Usage);
    return blob(ref->digest, ref->size, page);
  }
  throw Error("'" + std::string(url.substr(0, 80)) + "' is not an internal URL (artifact://, agent://, blob:sha256:)",
              ErrorKind::Usage);
}

namespace {

// Whether git keeps artifact `id` of `dir` past its TTL, as `artifacts gc`
// does: then it is served whatever its age.
bool kept_by_git(const fs::path& dir, const std::string& id) {
  const auto name = artifact_file_name(dir, id);
  return name && KeptByGit::ask({dir, session_file_of(dir)}).why(dir, *name);
}

}  // namespace

ResolvedUrl UrlResolver::artifact(std::string_view rest, const PageOptions& page) const {
  const std::string id(rest);
  if (!is_valid_artifact_id(id))
    throw Error("artifact://" + id + ": an artifact id is a number", ErrorKind::Usage);
  const fs::path& dir = require_dir();
  if (expiry_ && artifact_state(dir, id, expiry_->ttl, expiry_->now) == ArtifactState::Expired &&
      !kept_by_git(dir, id))
    throw Error("Artifact " + id + " expired: artifacts are kept for " + describe_ttl(expiry_->ttl) + " (" +
                kArtifactTtlKey + "); run the command again for its output",
                ErrorKind::Problem);
  const auto name = artifact_file_name(dir, id);
  if (!name) throw Error("Artifact " + id + " not found. Available: " + join(list_artifact_ids(dir)));
  return page_lines(read_artifact_file(dir, *name, "artifact://" + id), "text/plain", page);
}

ResolvedUrl UrlResolver::agent(std::string_view rest, const PageOptions& page) const {
  std::string_view query;
  if (const auto q = rest.find('?'); q != std::string_view::npos) {
    query = rest.substr(q + 1);
    rest = rest.substr(0, q);
  }
  std::vector<std::string> segments;
  for (std::size_t start = 0;;) {
    const auto slash = rest.find('/', start);
    const std::string_view raw = rest.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    auto decoded = percent_decode(raw);
    if (!decoded) throw Error("agent://" + std::string(rest) + ": bad percent escape in '" + std::string(raw) + "'", ErrorKind::Usage);
    segments.push_back(std::move(*decoded));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  std::string id = segments.front();
  segments.erase(segments.begin());
  if (!segments.empty() && segments.back().empty()) segments.pop_back();  // a trailing slash
  if (!is_valid_agent_id(id))
    throw Error("agent://" + std::string(rest) + ": '" + id + "' is not an agent output id (<name>[.<name>…], a name being 1-64 letters, digits, '_' or '-')",
                ErrorKind::Usage);
  std::optional<std::string> q;
  if (!query.empty()) {
    if (!query.starts_with("q="))
      throw Error("agent://" + id + ": the only query is ?q=<.key, [n] or ['key'] chain>", ErrorKind::Usage);
    q = percent_decode(query.substr(2));
    if (!q) throw Error("agent://" + id + ": bad percent escape in the query", ErrorKind::Usage);
  }
  // oh-my-pi's hierarchy hop: agent://Parent/Child names the nested output
  // Parent.Child.md when there is one; otherwise the path extracts from
  // Parent.md as before.
  if (!segments.empty() && !q && artifacts_dir_ && is_valid_agent_id(id)) {
    std::string nested = id;
    bool names = true;
    for (const auto& s : segments) {
      names = names && is_valid_name(s);
      nested += "." + s;
    }
    std::error_code ec;
    if (names && is_valid_agent_id(nested) && fs::exists(fs::symlink_status(*artifacts_dir_ / (nested + ".md"), ec))) {
      id = std::move(nested);
      segments.clear();
    }
  }
  const bool extracting = !segments.empty() || q;
  if (!segments.empty() && q)
    throw Error("agent://" + id + ": a path and ?q= extraction cannot be combined", ErrorKind::Usage);
  if (extracting && (page.offset || page.limit))
    throw Error("agent://" + id + ": offset and limit cannot be used with extraction", ErrorKind::Usage);
  const fs::path& dir = require_dir();
  const std::string file = id + ".md";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(dir / file, ec)))
    throw Error("Not found: " + id + ". Available: " + join(list_agent_ids(dir)));
  std::string text = read_artifact_file(dir, file, "agent://" + id);
  if (!extracting) return page_lines(std::move(text), "text/markdown", page);
  try {
    std::string value = q ? extract_json_query(text, *q) : extract_json_path(text, segments);
    return {std::move(value), "application/json", {}};
  } catch (const Error& e) {
    throw Error("agent://" + id + ": " + e.what(), e.kind());
  }
}

ResolvedUrl UrlResolver::blob(const Digest& digest, std::optional<std::uint64_t> size, const PageOptions& page) const {
  if (!blobs_) throw Error("blob " + digest.hex() + ": no blob store here (run inside a repository, or give --store)");
  auto bytes = blobs_(digest, size);
  if (!bytes) throw Error("blob " + digest.hex() + " is not in the blob store, the index or HEAD");
  return page_lines(std::move(*bytes), "application/octet-stream", page);
}

}  // namespace jpblob
