#include "core/merge/merge.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <unordered_set>
#include <optional>

#include "core/store/blob_store.hpp"
#include "core/documents/document.hpp"
#include "core/base/error.hpp"
#include "core/git/git_cli.hpp"
#include "core/format/json_scan.hpp"
#include "core/format/payload.hpp"
#include "core/merge/event_time.hpp"

namespace jpblob {

namespace {

// One log's entries: each event (or line) as its bytes, with its timestamp,
// and where the entries begin and end in the file (its layout).
struct Log {
  std::string_view text;
  std::vector<std::string_view> entries;
  std::vector<std::string> stamps;
  std::vector<bool> turn_starts;  // the entry is a `"type":"turn_start"` event
  std::size_t first = 0, last = 0;  // [first, last): from the first entry's start to the last one's end
};

std::string string_member(const JsonTree& t, const char* name) {
  const auto m = t.member(t.root(), name);
  if (m == kNoNode) return {};
  return t.string_value(m).value_or(std::string());
}

void add_entry(Log& log, std::string_view entry, const JsonTree* object) {
  log.entries.push_back(entry);
  log.stamps.push_back(object ? string_member(*object, "timestamp") : std::string());
  log.turn_starts.push_back(object && string_member(*object, "type") == "turn_start");
}

std::optional<Log> read_log(DocumentKind kind, std::string_view text) {
  Log log;
  log.text = text;
  if (kind == DocumentKind::Conversation) {
    const EventScan scan = scan_events(text, [&](const JsonTree& event) {
      const JsonNode& n = event.node(event.root());
      add_entry(log, text.substr(n.begin, n.end - n.begin), &event);
    });
    if (scan.shape != DocumentShape::Conversation) return std::nullopt;
  } else {
    // JSON lines: every line, blank ones included, is an entry; the file
    // must end with a newline (or be empty) to be a log one appends to.
    if (!text.empty() && text.back() != '\n') return std::nullopt;
    std::vector<JsonNode> nodes;
    for (std::size_t at = 0; at < text.size();) {
      const std::size_t end = text.find('\n', at);
      const std::string_view line = text.substr(at, end - at + 1);
      JsonError error;
      if (scan_json_value(text, at, nodes, error) && nodes[0].kind == JsonKind::Object) {
        const JsonTree object(text, nodes);
        add_entry(log, line, &object);
      } else {
        add_entry(log, line, nullptr);
      }
      at = end + 1;
    }
  }
  if (!log.entries.empty()) {
    log.first = static_cast<std::size_t>(log.entries.front().data() - text.data());
    log.last = static_cast<std::size_t>(log.entries.back().data() + log.entries.back().size() - text.data());
  }
  return log;
}

bool starts_with(const Log& log, const Log& base) {
  if (log.entries.size() < base.entries.size()) return false;
  return std::equal(base.entries.begin(), base.entries.end(), log.entries.begin());
}

// The bytes between two entries of a log with at least two; else nullopt.
std::optional<std::string_view> separator(const Log& log) {
  if (log.entries.size() < 2) return std::nullopt;
  const char* a = log.entries[0].data() + log.entries[0].size();
  return std::string_view(a, static_cast<std::size_t>(log.entries[1].data() - a));
}

// One side's new entries cut into blocks that stay together: a new block
// at each turn_start, the whole side one block without them.
struct Block {
  std::vector<std::string_view> entries;
  std::optional<EventTime> time;  // its first entry's
};

std::vector<Block> blocks_of(const Log& log, const std::vector<std::size_t>& indexes) {
  std::vector<Block> out;
  for (const std::size_t k : indexes) {
    if (out.empty() || log.turn_starts[k]) out.push_back({{}, parse_event_time(log.stamps[k])});
    out.back().entries.push_back(log.entries[k]);
  }
  return out;
}

}  // namespace

std::optional<std::string> merge_appended(DocumentKind kind, std::string_view base_text, std::string_view ours_text,
                                          std::string_view theirs_text) {
  const auto base = read_log(kind, base_text), ours = read_log(kind, ours_text), theirs = read_log(kind, theirs_text);
  if (!base || !ours || !theirs || !starts_with(*ours, *base) || !starts_with(*theirs, *base)) return std::nullopt;
  // Both sides' new entries in blocks (a turn each), an entry both added
  // (the same bytes) once. Blocks go by their first entry's time, ours first
  // on a tie or where one has none; each side's blocks keep their order. So
  // a tool call is followed by its own response, never by the other
  // teammate's request.
  const std::size_t kept = base->entries.size();
  std::multiset<std::string_view> ours_added(ours->entries.begin() + static_cast<std::ptrdiff_t>(kept),
                                             ours->entries.end());
  std::vector<std::size_t> ours_new, theirs_only;
  for (std::size_t j = kept; j < ours->entries.size(); ++j) ours_new.push_back(j);
  for (std::size_t j = kept; j < theirs->entries.size(); ++j) {
    const auto same = ours_added.find(theirs->entries[j]);
    if (same != ours_added.end()) ours_added.erase(same);
    else theirs_only.push_back(j);
  }
  const std::vector<Block> ours_blocks = blocks_of(*ours, ours_new), theirs_blocks = blocks_of(*theirs, theirs_only);
  std::vector<std::string_view> merged(base->entries.begin(), base->entries.end());
  std::size_t i = 0, t = 0;
  while (i < ours_blocks.size() || t < theirs_blocks.size()) {
    const bool take_ours = t >= theirs_blocks.size() ||
                           (i < ours_blocks.size() && (!ours_blocks[i].time || !theirs_blocks[t].time ||
                                                       *ours_blocks[i].time <= *theirs_blocks[t].time));
    const Block& b = take_ours ? ours_blocks[i++] : theirs_blocks[t++];
    merged.insert(merged.end(), b.entries.begin(), b.entries.end());
  }
  // The layout (what comes before the first entry, between two, after the
  // last) is ours, or the first log that has one.
  const Log* layout = nullptr;
  for (const Log* l : {&*ours, &*theirs, &*base})
    if (!layout && !l->entries.empty()) layout = l;
  if (!layout) return std::string(ours_text);  // no entries anywhere
  std::string_view sep = kind == DocumentKind::Conversation ? ",\n  " : "";
  for (const Log* l : {&*ours, &*theirs, &*base})
    if (auto s = separator(*l)) {
      sep = *s;
      break;
    }
  std::string out(layout->text.substr(0, layout->first));
  for (std::size_t k = 0; k < merged.size(); ++k) {
    if (k) out.append(sep);
    out.append(merged[k]);
  }
  out.append(layout->text.substr(layout->last));
  return out;
}

namespace {

// A document in JP's own form: every reference with an encoding restored
// (from the store, the kept copies or git's objects).
std::string restored(const Workspace& ws, DocumentKind kind, const std::string& path, std::string_view text) {
  std::string out;
  smudge_document(kind, text, ws.blobs(), ws.settings().smudge_options(path),
                  [&](std::string_view piece) { out.append(piece); });
  return out;
}

// A merge made in JP's own form, back in the repository's form. git makes
// this commit without the pre-commit hook (merge, rebase, cherry-pick,
// revert, am): the result references only blobs the three sides
// reference, which their commits hold; new content (and a side's inline
// payloads from before adoption) stays inline until the next `git add`,
// whose commit the hook checks.
std::string committed(const Workspace& ws, DocumentKind kind, const std::string& path, std::string_view merged,
                      const std::array<std::string_view, 3>& sides) {
  std::unordered_set<Digest, DigestHash> held;
  for (const std::string_view side : sides)
    for (const BlobUse& use : document_needs(kind, side, 0, InputForm::Committed).references) held.insert(use.digest);
  // The sides were merged in JP's form (restored): what is reference-shaped in it is the user's.
  CleanOptions options = ws.settings().clean_options(path, InputForm::WorkTree);
  options.may_reference = [&held](const Digest& d) { return held.count(d) > 0; };
  std::string cleaned;
  clean_document(kind, merged, ws.new_blobs(), options, [&](std::string_view piece) { cleaned.append(piece); });
  return cleaned;
}

}  // namespace

MergeOutcome merge_file(const Workspace& ws, const std::string& path, std::string_view base, std::string_view ours,
                        std::string_view theirs, int marker_size) {
  const GitCli git(ws.top());
  if (is_store_path(path)) {
    // One name, one content: any valid copy is the file (two zlibs or two
    // compression levels make different bytes of the same blob).
    if (const auto digest = digest_of_tracked_path(path)) {
      for (const std::string_view copy : {ours, theirs}) {
        try {
          check_blob(copy, *digest, std::nullopt, ws.settings().store.max_blob_size, path);
          return {std::string(copy), false, "same blob", {}};
        } catch (const Error&) {
          // not a valid copy: try the other
        }
      }
      return {std::string(ours), true, "no valid copy of the blob", {}};
    }
  }
  const auto kind = document_kind_at(path);
  if (!kind) {
    auto merged = git.merge_texts(ours, base, theirs, marker_size);
    return {std::move(merged.text), merged.conflict, "lines", {}};
  }
  if (auto appended = merge_appended(*kind, base, ours, theirs)) return {std::move(*appended), false, "appended", {}};
  // The sides in one form, JP's own: a side committed before adoption holds
  // its payloads inline where an adopted one holds references, so their
  // events differ in the committed form though JP's are the same. In JP's
  // form appended events merge as above; anything else merges line by
  // line, and a conflict shows payloads, not references.
  std::array<std::string, 3> jp;
  try {
    jp = {restored(ws, *kind, path, base), restored(ws, *kind, path, ours), restored(ws, *kind, path, theirs)};
  } catch (const Error& e) {
    // git's own line merge of the sides as given, as if no driver were
    // set: a conflict shows both sides, never one dropped.
    auto merged = git.merge_texts(ours, base, theirs, marker_size);
    return {std::move(merged.text), merged.conflict, "lines as committed",
            {std::string(e.what()) + "; " + path + " merged as committed, by git's line merge"}};
  }
  const std::array<std::string_view, 3> sides = {base, ours, theirs};
  if (auto appended = merge_appended(*kind, jp[0], jp[1], jp[2]))
    return {committed(ws, *kind, path, *appended, sides), false, "appended", {}};
  auto merged = git.merge_texts(jp[1], jp[0], jp[2], marker_size);
  if (merged.conflict) return {std::move(merged.text), true, "conflict", {}};
  return {committed(ws, *kind, path, merged.text, sides), false, "lines", {}};
}

}  // namespace jpblob
