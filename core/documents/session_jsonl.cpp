#include "core/documents/session_jsonl.hpp"

#include <functional>
#include <map>

#include "core/format/base64.hpp"
#include "core/base/error.hpp"
#include "core/format/json_scan.hpp"
#include "core/base/parallel.hpp"
#include "core/format/payload.hpp"
#include "core/format/reference.hpp"
#include "core/store/restore_budget.hpp"

namespace jpblob {

namespace {

struct BadLines {
  std::size_t count = 0;
  std::size_t first_line = 0;
  std::string first_problem;
};

// Calls `on_line` with the tree of every line that holds one JSON value.
// Offsets in the trees are offsets into `text`. Blank lines are skipped;
// lines that are not JSON are counted in the result.
BadLines scan_lines(std::string_view text, const std::function<void(const JsonTree&)>& on_line) {
  BadLines bad;
  std::vector<JsonNode> nodes;
  JsonError error;
  std::size_t number = 0;
  for (std::size_t start = 0; start < text.size();) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    ++number;
    const std::string_view line = text.substr(0, end);  // offsets stay those of `text`
    if (skip_json_whitespace(line, start) < end) {
      const auto after = scan_json_value(line, start, nodes, error);
      if (after && skip_json_whitespace(line, *after) == end) {
        on_line(JsonTree(text, std::move(nodes)));
        nodes = {};
      } else {
        if (bad.count++ == 0) {
          bad.first_line = number;
          bad.first_problem = after ? "unexpected data after the JSON value" : error.message;
        }
      }
    }
    start = end + 1;
  }
  return bad;
}

// The `data` string of every image block in one line, in document order.
void find_image_data(const JsonTree& t, std::vector<std::uint32_t>& out) {
  // Iterative: a line's nesting is bounded only by memory.
  std::vector<std::uint32_t> stack = {t.root()};
  std::vector<std::uint32_t> children;
  while (!stack.empty()) {
    const std::uint32_t i = stack.back();
    stack.pop_back();
    const JsonNode& n = t.node(i);
    if (n.kind != JsonKind::Array && n.kind != JsonKind::Object) continue;
    const bool content_array = n.kind == JsonKind::Array && i != t.root() && t.key_is(i, "content");
    children.clear();
    for (auto c = n.first_child; c != kNoNode; c = t.node(c).next_sibling) {
      children.push_back(c);
      if (!content_array || t.node(c).kind != JsonKind::Object) continue;
      const auto type = t.member(c, "type");
      const auto data = t.member(c, "data");
      if (type != kNoNode && data != kNoNode && t.node(data).kind == JsonKind::String &&
          t.node(type).kind == JsonKind::String && t.span(type) == "\"image\"")
        out.push_back(data);
    }
    // Push in reverse so the walk visits children in document order.
    for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
  }
}

std::string_view inner(std::string_view token) { return token.substr(1, token.size() - 2); }

// Whether `token` (quotes included) is inline image data externalize takes.
bool externalizable(std::string_view token) {
  return token.size() - 2 >= kImageExternalizeThreshold &&
         base64_is_canonical(inner(token), Base64Alphabet::Standard);
}

void add_bad_lines_warning(const BadLines& bad, const std::string& path, TransformReport& report) {
  if (bad.count == 0) return;
  report.warnings.push_back(path + ": " + std::to_string(bad.count) + " line(s) are not valid JSON (line " +
                            std::to_string(bad.first_line) + ": " + bad.first_problem +
                            "); left unchanged");
}

struct Splice {
  std::size_t begin, end;
};

}  // namespace

TransformReport externalize_session(std::string_view input, const BlobStore& store,
                                    const CleanOptions& options, const OutputSink& out) {
  std::vector<Splice> splices;
  std::vector<std::uint32_t> data;
  const BadLines bad = scan_lines(input, [&](const JsonTree& line) {
    data.clear();
    find_image_data(line, data);
    for (auto d : data)
      if (externalizable(line.span(d))) splices.push_back({line.node(d).begin, line.node(d).end});
  });
  TransformReport report;
  add_bad_lines_warning(bad, options.path, report);

  std::vector<std::string> decoded(splices.size());
  parallel_for(splices.size(), [&](std::size_t k) {
    decoded[k] = *base64_decode(inner(input.substr(splices[k].begin, splices[k].end - splices[k].begin)),
                                Base64Alphabet::Standard);
  });
  if (options.may_reference) {  // the others stay inline (CleanOptions::may_reference)
    std::size_t kept = 0;
    for (std::size_t k = 0; k < splices.size(); ++k) {
      if (!options.may_reference(Sha256::of(decoded[k]))) continue;
      splices[kept] = splices[k];
      decoded[kept++] = std::move(decoded[k]);
    }
    splices.resize(kept);
    decoded.resize(kept);
  }
  const auto puts = store.put_all(std::vector<std::string_view>(decoded.begin(), decoded.end()));

  std::string output;
  output.reserve(splices.empty() ? input.size() : input.size() / 2);
  std::size_t copied = 0;
  for (std::size_t k = 0; k < splices.size(); ++k) {
    output.append(input.substr(copied, splices[k].begin - copied));
    output.push_back('"');
    output.append(format_blob_url(puts[k].digest));
    output.push_back('"');
    copied = splices[k].end;
    report.blobs_written += puts[k].written ? 1 : 0;
    ++report.replaced;
  }
  output.append(input.substr(copied));
  out(output);
  return report;
}

TransformReport load_session(std::string_view input, const BlobSource& source,
                             const SmudgeOptions& options, const OutputSink& out) {
  struct Restore {
    Splice at;
    Digest digest;
  };
  std::vector<Restore> restores;
  std::vector<std::uint32_t> data;
  // Lines that are not JSON were reported when the file was added; git
  // loads a file far more often, so loading stays quiet about them.
  scan_lines(input, [&](const JsonTree& line) {
    data.clear();
    find_image_data(line, data);
    for (auto d : data)
      if (auto digest = parse_blob_url(inner(line.span(d))))
        restores.push_back({{line.node(d).begin, line.node(d).end}, *digest});
  });
  TransformReport report;

  // Each distinct blob is fetched once, on every core.
  std::map<Digest, std::size_t> index;
  std::vector<Digest> wanted;
  for (const auto& r : restores)
    if (index.emplace(r.digest, wanted.size()).second) wanted.push_back(r.digest);
  std::vector<std::string> tokens(wanted.size());
  std::vector<std::string> problems(wanted.size());
  // A session's blob: URLs declare no size: the distinct blobs are charged
  // as they arrive, and every use again before it is appended
  // (docs/FORMAT.md, "Bounds").
  RestoreBudget distinct(options.max_file_size, options.path);
  // A restored value replaces its URL, whose bytes are charged only where
  // the URL stays: the limit is what the restored file holds.
  RestoreBudget budget(options.max_file_size, options.path);
  std::uint64_t url_bytes = 0;
  for (const auto& r : restores) url_bytes += r.at.end - r.at.begin;
  budget.charge(input.size() - url_bytes);
  parallel_for(wanted.size(), [&](std::size_t k) {
    std::optional<std::string> bytes;
    try {
      bytes = source.fetch(wanted[k], std::nullopt);
    } catch (const Error& e) {
      problems[k] = std::string(e.what()) + "; left as a reference in " + options.path;
      return;
    }
    if (!bytes) {
      problems[k] = "blob " + wanted[k].hex() + " referenced by " + options.path +
                    " is missing; left as a reference";
      return;
    }
    distinct.charge(quoted_base64_length(bytes->size()), &wanted[k]);
    std::string token = "\"";
    append_base64(token, *bytes, Base64Alphabet::Standard);
    token.push_back('"');
    // Restore only what externalizing would turn back into this very
    // reference, so a hand-written reference to a small blob stays put and
    // the round trip holds for every committed file.
    if (externalizable(token)) tokens[k] = std::move(token);
  });
  for (const auto& p : problems)
    if (!p.empty()) report.warnings.push_back(p);

  std::string output;
  std::size_t copied = 0;
  for (const auto& r : restores) {
    const std::string& token = tokens[index[r.digest]];
    if (token.empty()) {
      budget.charge(r.at.end - r.at.begin);
      continue;
    }
    budget.charge(token.size());
    output.append(input.substr(copied, r.at.begin - copied));
    output.append(token);
    copied = r.at.end;
    ++report.replaced;
  }
  if (copied == 0) {
    out(input);
    return report;
  }
  output.append(input.substr(copied));
  deliver(std::move(output), options, out);
  return report;
}

SessionImages session_images(std::string_view input) {
  SessionImages images;
  std::vector<std::uint32_t> data;
  scan_lines(input, [&](const JsonTree& line) {
    data.clear();
    find_image_data(line, data);
    for (auto d : data) {
      const std::string_view token = line.span(d);
      if (auto digest = parse_blob_url(inner(token))) images.referenced.push_back(*digest);
      else if (externalizable(token)) {
        const std::string bytes = *base64_decode(inner(token), Base64Alphabet::Standard);
        images.inline_images.push_back({Sha256::of(bytes), bytes.size()});
      }
    }
  });
  return images;
}

}  // namespace jpblob
