#include "filter.hpp"

#include <iostream>

#include "core/documents/document.hpp"
#include "core/base/error.hpp"
#include "core/base/trace.hpp"
#include "core/git/blob_pack.hpp"
#include "core/format/digest.hpp"
#include "core/merge/sequence_record.hpp"
#include "core/store/restore_budget.hpp"

namespace jpblob {

namespace {

// What a failed checkout smudge says after why it failed: the ways out.
// `blob`: a blob is missing or corrupt (not a file over the size limit).
std::string way_out_of_smudge(bool blob) {
  return std::string(blob ? "; `git jpblob repair` writes the blob again from any good copy it can find" : "") +
         "; to check out every other file, run the command again with JPBLOB_SKIP_SMUDGE_ERRORS=1 (or `git "
         "config jpblob.skipSmudgeErrors true`): this file is then left in its committed reference form, and "
         "`git jpblob checkout` restores it later";
}

// The sink of a clean where no hook runs git-jpblob's check: a blob the
// index holds goes to `inner` as usual; any other fails the file before
// anything is stored, naming the blob (the warning the filter printed at
// its start says why and what to do). Staged or committed is all that
// counts: a blob stored by an earlier clean but in no index would not
// reach a commit either.
class CommittedBlobsOnly : public BlobSink {
 public:
  CommittedBlobsOnly(const BlobSink& inner, const HeldInIndex& held, const std::string& path)
      : inner_(inner), held_(held), path_(path) {}

  std::vector<BlobPut> put_all(const std::vector<std::string_view>& payloads) const override {
    for (std::string_view payload : payloads) {
      const Digest digest = Sha256::of(payload);
      if (held_(digest, payload) == GitCopy::Holds) continue;
      throw Error(path_ + ": refusing to store its new content (blob " + digest.hex() +
                  "): a commit would lack that blob, and every checkout of it fail, since no hook git runs here "
                  "runs git-jpblob's check. The warning above says how to set one up; then add the file again");
    }
    return inner_.put_all(payloads);
  }

 private:
  const BlobSink& inner_;
  const HeldInIndex& held_;
  const std::string& path_;
};

}  // namespace

Filter::Filter(const std::filesystem::path& cwd,
               const std::optional<std::filesystem::path>& store_dir)
    : workspace_(Workspace::open(cwd, store_dir, SharedSettings::Later)) {
  if (workspace_.in_work_tree() && workspace_.repo())
    needs_log_ = std::make_unique<NeedsLog>(needs_log_folder(workspace_.repo()->commondir()));
}

void Filter::record_clean(const std::string& path, std::string_view output) {
  if (!needs_log_) return;
  // The hook's question, asked the same way (hooks/staged_documents):
  // sessions it always reads.
  const DocumentKind kind = document_kind(path);
  if (kind != DocumentKind::Conversation) return;
  try {
    const CleanOptions options = workspace_.settings().clean_options(path, InputForm::Committed);
    if (output.size() > options.max_file_size) return;
    DocumentNeeds needs = document_needs(kind, output, options.min_size, InputForm::Committed);
    if (needs.unreadable || !needs.inline_payloads.empty() || needs.respelled != 0) return;
    // libgit2 1.5 opens SHA-1 repositories only.
    needs_log_->note(object_id(PackObject::Type::Blob, output, "sha1"),
                     RecordedNeeds{kind, options.min_size, output.size(), std::move(needs.references)});
  } catch (const Error& e) {
    if (!needs_log_warned_)
      std::cerr << "git-jpblob: warning: " << e.what()
                << "; the pre-commit hook reads the files from git instead\n" << std::flush;
    needs_log_warned_ = true;
  }
}

void Filter::run(FilterMode mode, std::string_view input, const std::string& path, const OutputSink& out,
                 const SmudgeContext& context) {
  const std::string name = path.empty() ? std::string("<stdin>") : path;
  // git names the file (%f, or the pathname key of filter-process); a
  // one-shot run without a name is a conversation.
  const DocumentKind kind = document_kind(name);
  TransformReport report;
  if (mode == FilterMode::Clean) {
    for (const auto& w : workspace_.read_shared_settings()) std::cerr << "git-jpblob: warning: " + w + "\n";
    if (auto noted = noted_merge_result(name, input)) {
      out(*noted);
      JPBLOB_TRACE("filter: clean " + name + ": the merge driver's result, its inline payloads kept (a sequence of "
                   "picks is in progress)");
      return;
    }
    const CleanOptions options = workspace_.settings().clean_options(name, workspace_.work_tree_form(name));
    if (refuse_new_blobs_ && workspace_.repo()) {
      if (!held_) held_ = held_in_index(*workspace_.repo());
      report = clean_document(kind, input, CommittedBlobsOnly(workspace_.new_blobs(), held_, name),
                              options, out);
    } else {
      report = clean_document(kind, input, workspace_.new_blobs(), options, out);
    }
    JPBLOB_TRACE("filter: clean " + name + ": " + std::to_string(report.replaced) + " payloads referenced, " +
                 std::to_string(report.blobs_written) + " blobs newly stored" +
                 (report.passthrough ? " (passed through unchanged)" : ""));
  } else if (workspace_.settings().smudge_refs_only) {
    out(input);  // JPBLOB_SKIP_SMUDGE=1 or jpblob.smudge=refs: the committed form
    JPBLOB_TRACE("filter: smudge " + name + ": left in the committed form (JPBLOB_SKIP_SMUDGE or jpblob.smudge=refs)");
    // Left so for one checkout: clean must read it as committed until
    // `git jpblob checkout` restores it (core/workspace/committed_form).
    if (context.checkout && !workspace_.settings().refs_mode) note_form(name, true);
  } else {
    SmudgeOptions options = workspace_.settings().smudge_options(name);
    options.keep_missing = !context.checkout;
    options.reserve = context.reserve;
    options.into = context.into;
    // Not streamed where the committed form must be able to stand in for
    // a file that fails partway (jpblob.skipSmudgeErrors): only that
    // setting writes anything after a failure.
    const bool skip_errors = workspace_.settings().skip_smudge_errors;
    options.stream_piece = context.stream && context.checkout && !skip_errors ? kStreamPiece : 0;
    try {
      report = smudge_document(kind, input, *workspace_.blobs().at(context.treeish), options, out);
      JPBLOB_TRACE("filter: smudge " + name + ": " + std::to_string(report.replaced) + " references restored" +
                   (context.checkout ? "" : " (for a display)"));
      if (context.checkout) note_form(name, false);
    } catch (const Error& e) {
      // A checkout that cannot restore this file: nothing was written to
      // `out`, so the committed form can stand in for it (git-lfs's
      // lfs.skipdownloaderrors), or the failure names the ways out.
      if (!skip_errors)
        throw Error(std::string(e.what()) + way_out_of_smudge(!dynamic_cast<const TooLargeToRestore*>(&e)));
      out(input);
      JPBLOB_TRACE("filter: smudge " + name + ": left in the committed form (jpblob.skipSmudgeErrors): " + e.what());
      if (context.checkout) note_form(name, true);
      report = TransformReport{};
      report.warnings.push_back(std::string(e.what()) + "; left in its committed reference form " +
                                "(jpblob.skipSmudgeErrors): `git jpblob checkout " + name +
                                "` restores it once it can");
    }
  }
  // One write a line: delayed smudges run on several threads at once.
  for (const auto& w : report.warnings) std::cerr << "git-jpblob: warning: " + w + "\n" << std::flush;
}


std::optional<std::string> Filter::noted_merge_result(const std::string& path, std::string_view input) {
  if (!workspace_.in_work_tree() || !workspace_.repo()) return std::nullopt;
  return jpblob::noted_merge_result(workspace_.repo()->gitdir(), path, input);
}

void Filter::note_form(const std::string& path, bool committed) {
  if (CommittedFormRecord* record = workspace_.committed_form()) record->note(path, committed);
}

void finish(const Workspace& ws) {
  try {
    ws.finish();
  } catch (const Error& e) {
    std::cerr << "git-jpblob: warning: " << e.what() << std::endl;
  }
}

}  // namespace jpblob
