// The clean and smudge transforms of docs/FORMAT.md, "The filter".
//
// clean: externalizes payloads (FORMAT "Payload positions") into the store and writes references
// (FORMAT "References") in their place; an encoded reference already at a payload position
// is rewritten to the canonical compact spelling. smudge: turns references that carry `encoding` back
// into the exact original string token. Every byte outside a replaced value
// is copied unchanged. Input that is not a conversation (not JSON, or not an
// array of objects) is passed through unchanged with a warning in the
// report, never an error: a filter must not lose or block a user's file.
//
// Both write their output through `out` only after the whole input has been
// validated, so a failure never leaves half a file behind.
//
// Why it is built so:
// - Splice, do not re-serialise. The scanner records the byte span of every
//   value, so clean replaces payload spans and copies everything else.
//   Whitespace, key order, escapes and number spelling survive, which is
//   what makes smudge(clean(x)) == x possible.
// - Two passes. Pass one validates the whole input and chooses the sites;
//   pass two stores the blobs and writes the output. Malformed input
//   therefore stores nothing and writes nothing before the passthrough.
//   Memory during the scan is bounded by the largest event, not the file.
// - One walk for clean and smudge. find_payload_sites (core/format/payload)
//   reports payload strings, inline content objects and references at
//   payload positions; smudge restores only those references, and only
//   when clean would recreate the same reference from the restored token.
//   That is what makes clean(smudge(c)) == c hold for every committed c;
//   fuzzing found the counter-example that forced it.
// - Clean knows the form of its input (InputForm, issue 25): see
//   core/format/literal.hpp.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/store/blob_source.hpp"
#include "core/store/blob_store.hpp"
#include "core/format/reference.hpp"

namespace jpblob {

using OutputSink = std::function<void(std::string_view)>;

struct TransformReport {
  bool passthrough = false;        // the input was copied unchanged
  std::vector<std::string> warnings;  // one line each: why passthrough was forced, blobs left as references
  std::size_t replaced = 0;        // values replaced
  std::size_t blobs_written = 0;   // new blob files (clean only)
};

// Which form clean's input is in (docs/FORMAT.md, "Literal objects"). A
// reference-shaped object in JP's own form is the user's data, and clean
// wraps it in a literal; in clean's own form it is clean's, and stays.
enum class InputForm {
  WorkTree,   // JP's form: what smudge gives back (the filter in restore mode, the merge driver, migrate)
  Committed,  // clean's own output (the refs mode, the pre-commit hook's re-clean of what is staged)
};

struct CleanOptions {
  // The form of the input. Every caller chooses: WorkTree wraps what smudge
  // would interpret, Committed keeps clean idempotent on its own output.
  InputForm form = InputForm::WorkTree;
  // Payload strings whose decoded size is below this stay inline (git
  // config jpblob.minSize). Inline content objects are always externalized.
  std::uint64_t min_size = 0;
  // The file's path, for messages.
  std::string path = "<stdin>";
  // The largest file clean accepts (jpblob.maxBlobSize): smudge restores
  // no more than this, so a larger file could never be checked out again.
  std::uint64_t max_file_size = kDefaultMaxBlobSize;
  // When set, only a payload whose digest it accepts becomes a reference;
  // the others stay inline as written. The merge driver's: git makes a
  // merge, rebase, cherry-pick or revert commit without the pre-commit
  // hook, so its result may reference only blobs its sides already hold,
  // and the next clean (a `git add`, whose commit runs the hook) takes the
  // rest out. Called from several threads at once.
  std::function<bool(const Digest&)> may_reference;
};

// Throws Error when a blob cannot be stored (a full disk, a read-only
// store); nothing has been written to `out` then.
TransformReport clean(std::string_view input, const BlobSink& store, const CleanOptions& options,
                      const OutputSink& out);

// The blobs a conversation needs: every reference it holds, anywhere
// (`references`), and the digest of every payload clean would externalize
// from it (`payloads`: a work tree conversation holds its payloads inline
// until it is added). Nothing is stored. Returns false, with `why`, when the
// input is not a conversation.
// `named` gets the blobs objects that are no references name under `$blob`
// (named_blobs), which have no size to trust; `in_literals` the blobs the
// user's own data names (user_data_sites: literal objects, and the agent's
// reference-shaped objects clean never wrote): kept alive, never required.
// In JP's form (`form`), what clean would wrap is such data too.
// `respelled` counts the references at payload positions that clean would
// write again in its canonical spelling (clean() in the Committed form).
bool referenced_digests(std::string_view input, std::uint64_t min_size, std::vector<Reference>& references,
                        std::vector<Digest>& named, std::vector<Reference>& payloads, std::string& why,
                        std::vector<Digest>* in_literals = nullptr, InputForm form = InputForm::Committed,
                        std::size_t* respelled = nullptr);

struct SmudgeOptions {
  std::string path = "<stdin>";
  // For a display (git diff and log through textconv): a blob that no copy
  // anywhere gives back leaves its reference as it is, with one warning,
  // rather than failing git's command. A checkout never sets it.
  bool keep_missing = false;
  // What the restored file may grow to (jpblob.maxBlobSize; docs/FORMAT.md,
  // "Bounds"). Past it smudge fails, naming the file, before fetching; a
  // display shows the file as committed instead.
  std::uint64_t max_file_size = kDefaultMaxBlobSize;
  // Called once before any blob is fetched, with what restoring the file
  // holds at its peak: the restored file and the blobs of one fetch window
  // (and those a later event uses again), as the references declare them.
  // A delayed smudge waits there for room in the pool's budget
  // (filter/delayed); false says the file is too large for the pool, and
  // smudge throws RestoreElsewhere.
  std::function<bool(std::uint64_t bytes)> reserve;
  // When set, a restored file is moved here instead of passed to `out`: a
  // delayed smudge then holds a large file once, not twice.
  std::string* into = nullptr;
  // The blob bytes smudge fetches at once, on every core, in document
  // order (a blob larger than it alone).
  std::uint64_t fetch_window = std::uint64_t{32} << 20;
  // When not 0 (and `into` is not set), the restored file goes to `out` in
  // pieces of about this many bytes as it is built, so a large file is
  // never held whole; a failure may then come after some pieces.
  std::size_t stream_piece = 0;
};

// Thrown by smudge when `reserve` declines: nothing was fetched or written.
struct RestoreElsewhere {};

// Hands a restored file to `options.into` (moved) or to `out`.
void deliver(std::string&& output, const SmudgeOptions& options, const OutputSink& out);

// Throws Error naming the digest and `options.path` when a referenced blob
// is missing or corrupt (unless keep_missing); nothing has been written to
// `out` then, unless the output is streamed (stream_piece).
TransformReport smudge(std::string_view input, const BlobSource& source,
                       const SmudgeOptions& options, const OutputSink& out);

}  // namespace jpblob
