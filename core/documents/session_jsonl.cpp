#include "core/documents/session_jsonl.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "core/format/base64.hpp"
#include "core/base/error.hpp"
#include "core/format/json_scan.hpp"
#include "core/base/parallel.hpp"
#include "core/format/payload.hpp"
#include "core/format/reference.hpp"
#include "core/store/restore_budget.hpp"
#include "core/documents/image_sites.hpp"
#include "core/format/json_string.hpp"

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

std::string_view inner(std::string_view token) { return token.substr(1, token.size() - 2); }

void add_bad_lines_warning(const BadLines& bad, const std::string& path, TransformReport& report) {
  if (bad.count == 0) return;
  report.warnings.push_back(path + ": " + std::to_string(bad.count) + " line(s) are not valid JSON (line " +
                            std::to_string(bad.first_line) + ": " + bad.first_problem +
                            "); left unchanged");
}

struct Splice {
  std::size_t begin, end;
};

// An image reference load_session restores: where it is, its blob, and
// the site's shape.
struct ImageRestore {
  Splice at;
  Digest digest;
  ImageSite site;
};

// A blob to restore, in the encoding its site takes.
using WantedImage = std::pair<Digest, ImageEncoding>;

// Each wanted blob's restored token, fetched on every core ("" where it
// is not restored), and the warning of each blob that is missing or
// corrupt, once each, in `report`. A session's blob: URLs declare no
// size: the distinct blobs are charged as they arrive (docs/FORMAT.md,
// "Bounds"), against what one restored file may hold.
std::vector<std::string> fetch_image_tokens(const std::vector<WantedImage>& wanted, const BlobSource& source,
                                            const SmudgeOptions& options, TransformReport& report) {
  std::vector<std::string> tokens(wanted.size());
  std::vector<std::string> problems(wanted.size());
  RestoreBudget distinct(options.max_file_size, options.path);
  parallel_for(wanted.size(), [&](std::size_t k) {
    std::optional<std::string> bytes;
    try {
      bytes = source.fetch(wanted[k].first, std::nullopt);
    } catch (const Error& e) {
      problems[k] = std::string(e.what()) + "; left as a reference in " + options.path;
      return;
    }
    if (!bytes) {
      problems[k] = "blob " + wanted[k].first.hex() + " referenced by " + options.path +
                    " is missing; left as a reference";
      return;
    }
    distinct.charge(wanted[k].second == ImageEncoding::Base64 ? quoted_base64_length(bytes->size())
                                                              : json_string_length(*bytes),
                    &wanted[k].first);
    // Restore only what externalizing would turn back into this very
    // reference, so a hand-written reference to a small blob stays put and
    // the round trip holds for every committed file.
    if (auto token = restored_image_token(*bytes, wanted[k].second)) tokens[k] = std::move(*token);
  });
  for (const auto& p : problems)
    if (!p.empty() && std::find(report.warnings.begin(), report.warnings.end(), p) == report.warnings.end())
      report.warnings.push_back(p);
  return tokens;
}

}  // namespace

TransformReport externalize_session(std::string_view input, const BlobSink& store,
                                    const CleanOptions& options, const OutputSink& out) {
  std::vector<Splice> splices;
  std::vector<ImageSite> sites;
  std::vector<ImageSite> chosen;
  const BadLines bad = scan_lines(input, [&](const JsonTree& line) {
    sites.clear();
    find_image_sites(line, sites);
    for (const auto& site : sites) {
      splices.push_back({line.node(site.node).begin, line.node(site.node).end});
      chosen.push_back(site);
    }
  });
  TransformReport report;
  add_bad_lines_warning(bad, options.path, report);

  // Decoding decides which sites move; a site whose value stays inline
  // leaves an empty slot, dropped below.
  std::vector<std::optional<std::string>> payload(splices.size());
  parallel_for(splices.size(), [&](std::size_t k) {
    payload[k] = inline_image_bytes(input.substr(splices[k].begin, splices[k].end - splices[k].begin), chosen[k]);
    if (payload[k] && !site_stores(chosen[k], payload[k]->size(), options.min_size)) payload[k].reset();
  });
  std::vector<std::string> decoded;
  {
    std::size_t kept = 0;
    for (std::size_t k = 0; k < splices.size(); ++k) {
      if (!payload[k]) continue;
      splices[kept++] = splices[k];
      decoded.push_back(std::move(*payload[k]));
    }
    splices.resize(kept);
  }
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
  std::vector<ImageRestore> restores;
  std::vector<ImageSite> sites;
  // Lines that are not JSON were reported when the file was added; git
  // loads a file far more often, so loading stays quiet about them.
  scan_lines(input, [&](const JsonTree& line) {
    sites.clear();
    find_image_sites(line, sites);
    for (const auto& site : sites)
      if (auto digest = parse_blob_url(inner(line.span(site.node))))
        restores.push_back({{line.node(site.node).begin, line.node(site.node).end}, *digest, site});
  });
  TransformReport report;

  // Each distinct blob is fetched once, on every core (once for each
  // encoding it is restored in: in practice one).
  std::map<WantedImage, std::size_t> index;
  std::vector<WantedImage> wanted;
  for (const auto& r : restores)
    if (index.emplace(WantedImage{r.digest, r.site.encoding}, wanted.size()).second)
      wanted.push_back({r.digest, r.site.encoding});
  // A restored value replaces its URL, whose bytes are charged only where
  // the URL stays: the limit is what the restored file holds, every use
  // charged again before it is appended.
  RestoreBudget budget(options.max_file_size, options.path);
  std::uint64_t url_bytes = 0;
  for (const auto& r : restores) url_bytes += r.at.end - r.at.begin;
  budget.charge(input.size() - url_bytes);
  const std::vector<std::string> tokens = fetch_image_tokens(wanted, source, options, report);

  std::string output;
  std::size_t copied = 0;
  for (const auto& r : restores) {
    const std::string& token = tokens[index[WantedImage{r.digest, r.site.encoding}]];
    if (token.empty() || !restored_fits(token, r.site)) {
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

SessionImages session_images(std::string_view input, std::uint64_t min_size) {
  SessionImages images;
  std::vector<ImageSite> sites;
  scan_lines(input, [&](const JsonTree& line) {
    sites.clear();
    find_image_sites(line, sites);
    for (const auto& site : sites) {
      const std::string_view token = line.span(site.node);
      if (auto digest = parse_blob_url(inner(token))) images.referenced.push_back(*digest);
      else if (auto bytes = inline_image_bytes(token, site); bytes && site_stores(site, bytes->size(), min_size))
        images.inline_images.push_back({Sha256::of(*bytes), bytes->size()});
    }
  });
  return images;
}

}  // namespace jpblob
