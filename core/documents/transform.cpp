#include "core/documents/transform.hpp"

#include <algorithm>
#include <memory>
#include <tuple>
#include <vector>

#include "core/documents/fetch_windows.hpp"
#include "core/format/base64.hpp"
#include "core/base/buffer.hpp"
#include "core/base/error.hpp"
#include "core/format/json_scan.hpp"
#include "core/format/json_string.hpp"
#include "core/format/literal.hpp"
#include "core/base/parallel.hpp"
#include "core/format/payload.hpp"
#include "core/store/restore_budget.hpp"

namespace jpblob {

namespace {

// A replacement decided in the first pass: bytes [begin, end) of the input.
struct Splice {
  std::size_t begin, end;
  SiteKind kind;
  PayloadEncoding encoding;
  bool wrap = false;                // the user's object, written inside a literal
  bool only_where_it_pays = false;  // PayloadSite's
};

// Whether clean stores a payload string of `token` whose bytes decoded
// as `encoding` are `bytes`: clean and every count of what it would store
// (referenced_digests) share this one rule.
bool stores(bool only_where_it_pays, std::string_view token, std::string_view bytes, PayloadEncoding encoding,
            std::uint64_t min_size) {
  if (bytes.size() < min_size) return false;
  return !only_where_it_pays || reference_pays(token.size(), Reference{Digest(Digest::Bytes{}), bytes.size(), encoding});
}

// Whether a string token is the canonical encoding of its text, with the
// text in `out`. Without a backslash the token is its own text, and the
// canonical encoder escapes nothing the scanner would have let through raw.
bool canonical_text(std::string_view token, std::string* out) {
  const std::string_view inner = token.substr(1, token.size() - 2);
  if (inner.find('\\') == std::string_view::npos) {
    if (out) out->assign(inner);
    return true;
  }
  auto text = decode_json_string(token);
  if (!text || encode_json_string(*text) != token) return false;
  if (out) *out = std::move(*text);
  return true;
}

// The first encoding whose re-encoding reproduces the token exactly (docs/FORMAT.md, "Encodings").
std::optional<PayloadEncoding> restorable_encoding(std::string_view token) {
  const std::string_view inner = token.substr(1, token.size() - 2);
  if (base64_is_canonical(inner, Base64Alphabet::Standard)) return PayloadEncoding::Base64;
  if (base64_is_canonical(inner, Base64Alphabet::UrlSafe)) return PayloadEncoding::Base64Url;
  if (canonical_text(token, nullptr)) return PayloadEncoding::Text;
  return std::nullopt;
}

// A payload string's encoding (the first that reproduces the token, as
// restorable_encoding chooses) with its bytes, decoding as it goes (base64
// once): into `slot` (room for what base64 of the token's length decodes
// to), or into `own` where the bytes are text with escapes; text without
// them is the input's own bytes. nullopt when no encoding reproduces it.
std::optional<std::pair<PayloadEncoding, std::string_view>> decode_payload_in_place(std::string_view token, char* slot,
                                                                                     std::string& own) {
  const std::string_view inner = token.substr(1, token.size() - 2);
  for (auto [alphabet, encoding] : {std::pair{Base64Alphabet::Standard, PayloadEncoding::Base64},
                                    std::pair{Base64Alphabet::UrlSafe, PayloadEncoding::Base64Url}})
    if (const auto n = base64_decode_into(inner, alphabet, slot)) return std::pair{encoding, std::string_view(slot, *n)};
  if (inner.find('\\') == std::string_view::npos) return std::pair{PayloadEncoding::Text, inner};
  if (canonical_text(token, &own)) return std::pair{PayloadEncoding::Text, std::string_view(own)};
  return std::nullopt;
}

// Decoded bytes of an inline content object, or nullopt when its value
// cannot be decoded exactly (it then stays inline).
std::optional<std::string> content_object_bytes(const JsonTree& t, std::uint32_t obj) {
  const auto only = t.node(obj).first_child;
  auto value = t.string_value(only);
  if (!value) return std::nullopt;
  if (t.key_is(only, "text")) return value;
  if (auto b = base64_decode(*value, Base64Alphabet::Standard)) return b;
  return base64_decode(*value, Base64Alphabet::UrlSafe);
}

std::optional<std::string> passthrough_warning(const EventScan& scan) {
  if (scan.shape == DocumentShape::NotJson) return "not valid JSON (" + scan.problem + ")";
  if (scan.shape == DocumentShape::NotConversation)
    return "not a JP conversation (" + scan.problem + ")";
  return std::nullopt;
}

TransformReport pass_through(std::string_view input, const std::string& path,
                             const std::string& why, const OutputSink& out) {
  out(input);
  TransformReport report;
  report.passthrough = true;
  report.warnings.push_back(path + " is " + why + "; passing it through unchanged");
  return report;
}

// clean's pass 1: every payload site of `input` checked, and the values
// to replace chosen, in document order, for input in the form `form`.
EventScan choose_splices(std::string_view input, InputForm form, std::vector<Splice>& splices) {
  std::vector<PayloadSite> sites;
  return scan_events(input, [&](const JsonTree& event) {
    sites.clear();
    find_payload_sites(event, sites);
    for (const PayloadSite& site : sites) {
      const JsonNode& n = event.node(site.node);
      if (site.kind == SiteKind::Reference || site.kind == SiteKind::Literal) {
        // In JP's form, what smudge would interpret is the user's own
        // object: written back as it came, inside a literal.
        if (form == InputForm::WorkTree && wrapped_in_work_tree(event, site.node)) {
          splices.push_back({n.begin, n.end, site.kind, PayloadEncoding::None, true});
          continue;
        }
      }
      // The user's own objects stay as written, in both forms.
      if (site.kind == SiteKind::Literal || site.kind == SiteKind::UserObject) continue;
      if (site.kind == SiteKind::Reference) {
        // Clean owns the spelling of the references it writes: one written
        // another way (a JSON tool resolving a merge conflict adds spaces)
        // is rewritten to the canonical form, or smudge would restore it
        // and the next clean would change the file.
        const auto ref = parse_reference(event, site.node);
        if (ref->encoding != PayloadEncoding::None && event.span(site.node) != format_reference(*ref))
          splices.push_back({n.begin, n.end, site.kind, ref->encoding});
        continue;
      }
      if (site.kind == SiteKind::ContentObject) {
        if (content_object_bytes(event, site.node))
          splices.push_back({n.begin, n.end, site.kind, PayloadEncoding::None});
        continue;
      }
      // The encoding is found while decoding, on every core, in pass 2.
      splices.push_back({n.begin, n.end, site.kind, PayloadEncoding::None, false, site.only_where_it_pays});
    }
  });
}

// The payloads of clean's splices, decoded.
struct DecodedPayloads {
  std::unique_ptr<char[]> slots;        // the strings' decoded bytes, a slot each
  std::vector<std::string_view> bytes;  // each splice's decoded bytes
  std::vector<std::string> own;         // content objects, text with escapes
  std::vector<char> keep;               // 1 where the splice is made, 0 where the value stays as written
};

// clean's pass 2, first half: the payloads of `splices` decoded on every
// core, each string's encoding chosen (into its splice) as it decodes, and
// which values are replaced (clean's rule, `stores`, and
// options.may_reference).
void decode_payloads(std::string_view input, std::vector<Splice>& splices, const CleanOptions& options,
                     DecodedPayloads& decoded) {
  std::vector<std::size_t> slot_at(splices.size() + 1, 0);
  for (std::size_t k = 0; k < splices.size(); ++k)
    slot_at[k + 1] = slot_at[k] + (splices[k].kind == SiteKind::String ? (splices[k].end - splices[k].begin) / 4 * 3 : 0);
  decoded.slots = allocate_large(slot_at.back());
  decoded.bytes.resize(splices.size());
  decoded.own.resize(splices.size());
  decoded.keep.assign(splices.size(), 1);
  parallel_for(splices.size(), [&](std::size_t k) {
    const Splice& s = splices[k];
    if (s.kind == SiteKind::Reference || s.kind == SiteKind::Literal) return;
    if (s.kind == SiteKind::ContentObject) {
      // Re-scan the small object to decode it; its validity is known.
      std::vector<JsonNode> nodes;
      JsonError error;
      scan_json_value(input, s.begin, nodes, error);
      decoded.own[k] = *content_object_bytes(JsonTree(input, std::move(nodes)), 0);
      decoded.bytes[k] = decoded.own[k];
    } else {
      const std::string_view token = input.substr(s.begin, s.end - s.begin);
      const auto payload = decode_payload_in_place(token, decoded.slots.get() + slot_at[k], decoded.own[k]);
      decoded.keep[k] =
          payload && stores(s.only_where_it_pays, token, payload->second, payload->first, options.min_size);
      if (payload) std::tie(splices[k].encoding, decoded.bytes[k]) = *payload;
    }
    if (decoded.keep[k] && options.may_reference && !options.may_reference(Sha256::of(decoded.bytes[k])))
      decoded.keep[k] = 0;
  });
}

// clean's pass 2, second half: the payloads kept stored all at once, and
// the output: `input` with each splice made.
std::string store_and_splice(std::string_view input, const std::vector<Splice>& splices,
                             const DecodedPayloads& decoded, const BlobSink& store, TransformReport& report) {
  std::vector<std::string_view> to_store;
  std::vector<std::size_t> stored_at(splices.size(), SIZE_MAX);
  for (std::size_t k = 0; k < splices.size(); ++k)
    if (splices[k].kind != SiteKind::Reference && splices[k].kind != SiteKind::Literal && decoded.keep[k]) {
      stored_at[k] = to_store.size();
      to_store.push_back(decoded.bytes[k]);
    }
  const auto puts = store.put_all(to_store);

  std::string output;
  output.reserve(input.size() / 4 + 1024);
  std::size_t copied = 0;
  for (std::size_t k = 0; k < splices.size(); ++k) {
    const Splice& s = splices[k];
    if (!decoded.keep[k]) continue;
    output.append(input.substr(copied, s.begin - copied));
    if (s.wrap) {
      append_literal(output, input.substr(s.begin, s.end - s.begin));
    } else if (s.kind == SiteKind::Reference) {
      append_reference(output, *parse_reference_json(input.substr(s.begin, s.end - s.begin)));
    } else {
      const auto& put = puts[stored_at[k]];
      report.blobs_written += put.written ? 1 : 0;
      append_reference(output, Reference{put.digest, decoded.bytes[k].size(), s.encoding});
    }
    copied = s.end;
    ++report.replaced;
  }
  output.append(input.substr(copied));
  return output;
}

}  // namespace

TransformReport clean(std::string_view input, const BlobSink& store, const CleanOptions& options,
                      const OutputSink& out) {
  // Pass 1: validate everything and choose what to replace. Nothing is
  // stored yet, so malformed input leaves no orphan blobs behind.
  std::vector<Splice> splices;
  const EventScan scan = choose_splices(input, options.form, splices);
  if (auto why = passthrough_warning(scan)) return pass_through(input, options.path, *why, out);

  // Pass 2: decode the payloads (choosing each string's encoding), store
  // them all at once, build the output. Strings decode into one buffer, a
  // slot each: thousands of separate allocations cost a page fault each
  // few KiB (core/base/buffer.hpp).
  TransformReport report;
  DecodedPayloads decoded;
  decode_payloads(input, splices, options, decoded);
  out(store_and_splice(input, splices, decoded, store, report));
  return report;
}

bool referenced_digests(std::string_view input, std::uint64_t min_size, std::vector<Reference>& references,
                        std::vector<Digest>& named, std::vector<Reference>& payloads, std::string& why,
                        std::vector<Digest>* in_literals, InputForm form, std::size_t* respelled) {
  std::vector<PayloadSite> sites;
  std::vector<FoundReference> found;
  std::vector<Digest> unused;
  std::string slot, own;  // one payload's decoded bytes at a time (decode_payload_in_place)
  const EventScan scan = scan_events(input, [&](const JsonTree& event) {
    sites.clear();
    find_payload_sites(event, sites);
    found.clear();
    // The user's own data: literals, the agent's other reference-shaped
    // objects, and in JP's form what clean would wrap.
    std::vector<std::uint32_t> users;
    for (const PayloadSite& site : sites)
      if (site.kind == SiteKind::Literal || site.kind == SiteKind::UserObject ||
          (form == InputForm::WorkTree && site.kind == SiteKind::Reference && wrapped_in_work_tree(event, site.node)))
        users.push_back(site.node);
    find_references(event, found, &named, &users, in_literals ? in_literals : &unused);
    for (const auto& f : found) references.push_back(f.ref);
    for (const PayloadSite& site : sites) {
      if (site.kind == SiteKind::Reference && respelled && !(form == InputForm::WorkTree && wrapped_in_work_tree(event, site.node))) {
        // As clean() decides it: one of its own references, spelled otherwise.
        const auto ref = parse_reference(event, site.node);
        if (ref && ref->encoding != PayloadEncoding::None && event.span(site.node) != format_reference(*ref)) ++*respelled;
      } else if (site.kind == SiteKind::ContentObject) {
        if (const auto bytes = content_object_bytes(event, site.node))
          payloads.push_back(Reference{Sha256::of(*bytes), bytes->size(), PayloadEncoding::None});
      } else if (site.kind == SiteKind::String) {
        const std::string_view token = event.span(site.node);
        slot.resize(token.size() / 4 * 3);
        const auto payload = decode_payload_in_place(token, slot.data(), own);
        if (payload && stores(site.only_where_it_pays, token, payload->second, payload->first, min_size))
          payloads.push_back(Reference{Sha256::of(payload->second), payload->second.size(), PayloadEncoding::None});
      }
    }
  });
  if (auto w = passthrough_warning(scan)) {
    why = *w;
    return false;
  }
  return true;
}

void deliver(std::string&& output, const SmudgeOptions& options, const OutputSink& out) {
  if (options.into)
    *options.into = std::move(output);
  else
    out(output);
}

namespace {

// A reference smudge restores: bytes [begin, end) of the input.
struct Restore {
  std::size_t begin, end;
  Reference ref;
};
// Literals clean wrote: [begin, end) becomes the value's bytes [value_begin, value_end).
struct Unwrap {
  std::size_t begin, end, value_begin, value_end;
};

// smudge's first pass: the references to restore and the literals to
// unwrap, in document order.
EventScan find_restores(std::string_view input, std::vector<Restore>& restores, std::vector<Unwrap>& unwrapped) {
  std::vector<PayloadSite> sites;
  return scan_events(input, [&](const JsonTree& event) {
    sites.clear();
    find_payload_sites(event, sites);
    for (const auto& site : sites) {
      if (site.kind == SiteKind::Literal && unwraps(event, site.node)) {
        const JsonNode& value = event.node(literal_value(event, site.node));
        unwrapped.push_back({event.node(site.node).begin, event.node(site.node).end, value.begin, value.end});
        continue;
      }
      if (site.kind != SiteKind::Reference) continue;
      auto ref = parse_reference(event, site.node);
      if (ref->encoding != PayloadEncoding::None)
        restores.push_back({event.node(site.node).begin, event.node(site.node).end, *ref});
    }
  });
}

// Bound what the file grows to before fetching anything (docs/FORMAT.md,
// "Bounds"): every reference is charged what it will add, once per use.
// The references' own bytes are not: a restored value replaces them, and
// counting both refused files at the limit that clean had accepted at it.
// A reference left as it is is charged its bytes when it is left
// (SmudgeOutput::keep_reference).
void charge_restored_size(RestoreBudget& budget, std::string_view input, const std::vector<Restore>& restores) {
  std::uint64_t reference_bytes = 0;
  for (const Restore& r : restores) reference_bytes += r.end - r.begin;
  budget.charge(input.size() - reference_bytes);
  for (const Restore& r : restores)
    budget.charge(r.ref.encoding == PayloadEncoding::Text ? r.ref.size : quoted_base64_length(r.ref.size),
                  &r.ref.digest);
}

// smudge's output, built in document order: the input's bytes between the
// values it replaces, the literals clean wrote unwrapped, and each
// reference restored, or left as it is where it cannot be.
class SmudgeOutput {
 public:
  SmudgeOutput(std::string_view input, const std::vector<Unwrap>& unwrapped, RestoreBudget& budget,
               TransformReport& report)
      : input_(input), unwrapped_(unwrapped), budget_(budget), report_(report) {}

  // What is built so far (a streamed file hands it on and clears it).
  std::string& text() { return output_; }

  // Literals before `offset`, in document order among the restores.
  void unwrap_before(std::size_t offset) {
    for (; next_unwrap_ < unwrapped_.size() && unwrapped_[next_unwrap_].begin < offset; ++next_unwrap_) {
      const Unwrap& u = unwrapped_[next_unwrap_];
      output_.append(input_.substr(copied_, u.begin - copied_));
      output_.append(input_.substr(u.value_begin, u.value_end - u.value_begin));
      copied_ = u.end;
      ++report_.replaced;
    }
  }

  // `r` restored from its blob's `bytes`; left as it is where there are
  // none (keep_missing) or clean would not read them back into `r`.
  void restore(const Restore& r, const std::optional<std::string>& bytes) {
    if (!bytes) {  // kept as a reference (keep_missing)
      keep_reference(r);
      return;
    }
    if (r.ref.encoding == PayloadEncoding::Base64) {
      // Canonical standard base64 is what clean reads first, so it always
      // restores: encode straight into the output.
      output_.append(input_.substr(copied_, r.begin - copied_));
      output_.push_back('"');
      append_base64(output_, *bytes, Base64Alphabet::Standard);
      output_.push_back('"');
      copied_ = r.end;
      ++report_.replaced;
      return;
    }
    token_.clear();
    if (r.ref.encoding == PayloadEncoding::Text) {
      // Only text clean could have read: valid UTF-8.
      if (!is_valid_utf8(*bytes)) {
        keep_reference(r);
        return;
      }
      // Escapes make a text token longer than its bytes (six times, for
      // control characters): charge the rest before building it.
      const std::uint64_t length = json_string_length(*bytes);
      if (length > bytes->size()) budget_.charge(length - bytes->size(), &r.ref.digest);
      append_json_string(token_, *bytes);
    } else {
      token_.push_back('"');
      append_base64(token_, *bytes, r.ref.encoding == PayloadEncoding::Base64 ? Base64Alphabet::Standard
                                                                              : Base64Alphabet::UrlSafe);
      token_.push_back('"');
    }
    // Restore only what clean would turn back into this very reference; a
    // hand-made one (say "text" for bytes that read as base64) stays as it
    // is, so clean(smudge(x)) == x holds for every committed x.
    if (restorable_encoding(token_) != r.ref.encoding) {
      keep_reference(r);
      return;
    }
    output_.append(input_.substr(copied_, r.begin - copied_));
    output_.append(token_);
    copied_ = r.end;
    ++report_.replaced;
  }

  // The rest of the input after the last restore; the output whole.
  std::string finish() {
    unwrap_before(input_.size());
    output_.append(input_.substr(copied_));
    return std::move(output_);
  }

 private:
  void keep_reference(const Restore& r) { budget_.charge(r.end - r.begin, &r.ref.digest); }

  std::string_view input_;
  const std::vector<Unwrap>& unwrapped_;
  RestoreBudget& budget_;
  TransformReport& report_;
  std::string output_;
  std::string token_;  // one restored value at a time
  std::size_t copied_ = 0, next_unwrap_ = 0;
};

}  // namespace

TransformReport smudge(std::string_view input, const BlobSource& source,
                       const SmudgeOptions& options, const OutputSink& out) {
  std::vector<Restore> restores;
  std::vector<Unwrap> unwrapped;
  const EventScan scan = find_restores(input, restores, unwrapped);
  if (auto why = passthrough_warning(scan)) return pass_through(input, options.path, *why, out);

  TransformReport report;
  if (restores.empty() && unwrapped.empty()) {
    out(input);
    return report;
  }
  RestoreBudget budget(options.max_file_size, options.path);
  charge_restored_size(budget, input, restores);
  std::vector<const Reference*> uses;
  uses.reserve(restores.size());
  for (const Restore& r : restores) uses.push_back(&r.ref);
  const FetchPlan plan = plan_fetches(uses, options.fetch_window);
  const bool streamed = options.stream_piece != 0 && !options.into;
  // A streamed file holds one piece of itself, not the whole.
  const std::uint64_t output_held =
      streamed ? std::min<std::uint64_t>(budget.used(), 2 * options.stream_piece) : budget.used();
  if (options.reserve && !options.reserve(output_held + plan.held_at_peak)) throw RestoreElsewhere{};
  std::vector<std::optional<std::string>> fetched(plan.wanted.size());
  std::size_t kept = 0;
  SmudgeOutput output(input, unwrapped, budget, report);
  reserve_large(output.text(), static_cast<std::size_t>(output_held));
  // A blob's bytes go after their last use: the file grows as they go.
  struct ReleaseAfter {
    std::optional<std::string>& bytes;
    bool last;
    ~ReleaseAfter() {
      if (last) bytes.reset();
    }
  };
  std::size_t windows = 0;  // fetched so far
  for (std::size_t k = 0; k < restores.size(); ++k) {
    if (streamed && output.text().size() >= options.stream_piece) {
      out(output.text());
      output.text().clear();
    }
    const std::size_t slot = plan.slot[k];
    if (windows < plan.window_end.size() && slot == (windows ? plan.window_end[windows - 1] : 0)) {
      kept += fetch_blobs(source, plan, slot, plan.window_end[windows], fetched, options.keep_missing, options.path);
      ++windows;
    }
    output.unwrap_before(restores[k].begin);
    const ReleaseAfter release{fetched[slot], plan.last_use[slot] == k};
    output.restore(restores[k], fetched[slot]);
  }
  std::string restored = output.finish();
  if (kept > 0)
    report.warnings.push_back(options.path + ": " + std::to_string(kept) +
                              " blob(s) it references are in no copy git-jpblob can reach; showing their "
                              "references");
  deliver(std::move(restored), options, out);
  return report;
}

}  // namespace jpblob
