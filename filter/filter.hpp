// The filter as git runs it, in either mode: one-shot (`clean`/`smudge`,
// one process a file) or long-running (`filter-process`). Both go through
// one Filter, so both give the same bytes for the same file.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/documents/transform.hpp"
#include "core/lean/lean_tree.hpp"
#include "core/lean/needs_log.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

enum class FilterMode { Clean, Smudge };

// What git says about a smudge (filter-process metadata).
struct SmudgeContext {
  // The commit or tree being checked out (`treeish`), looked in first.
  std::optional<std::string> treeish;
  // True when git writes the file into the work tree: it always names the
  // blob then (`blob`). A smudge without it is for a display (git diff and
  // log through textconv), which never fails for a missing blob.
  bool checkout = true;
  // A delayed smudge's turn in the pool's memory budget (filter/delayed).
  std::function<bool(std::uint64_t bytes)> reserve;
  // Where a restored file goes instead of `out`, moved (SmudgeOptions::into).
  std::string* into = nullptr;
  // The restored file goes to `out` in pieces as it is built
  // (SmudgeOptions::stream_piece); a checkout's only.
  bool stream = false;
};

// The pieces a streamed smudge writes at a time.
inline constexpr std::size_t kStreamPiece = std::size_t{4} << 20;

class Filter {
 public:
  // Opens the workspace for a filter run in `cwd` (git runs filters at the
  // top of the work tree). Throws Error when the store is unusable. The
  // shared settings (`.jpblobconfig`) are read at the first clean, never
  // for a smudge: a bad one is a warning then, once.
  Filter(const std::filesystem::path& cwd, const std::optional<std::filesystem::path>& store_dir);

  // Filters one file. `path` is git's name for it, for messages. Warnings
  // go to stderr, one line each, prefixed "git-jpblob: warning: ". Throws
  // Error on failure, having written nothing to `out` (a streamed smudge
  // may have written some: it fails then whatever the settings); a checkout's smudge
  // failure ends with the ways out (way_out_of_smudge), or with
  // jpblob.skipSmudgeErrors writes the committed form with a warning. Cleans
  // run one at a time; smudges may run on several threads at once, beside a
  // clean.
  void run(FilterMode mode, std::string_view input, const std::string& path, const OutputSink& out,
           const SmudgeContext& context = {});

  // Records what the clean of `path` that gave `output` references, for
  // the pre-commit hook (core/lean/needs_log), when it is a
  // conversation with nothing for a second clean to do. A failure to write
  // is one warning a process: the hook then reads the file from git.
  void record_clean(const std::string& path, std::string_view output);

  // From now on, a clean that would store a blob the index does not hold
  // yet fails, saying that no hook git runs here runs git-jpblob's check
  // (install/hook_guard: unchecked_commits; the caller has said why and
  // what to do). Blobs the index holds pass, so files whose content is
  // committed clean as ever.
  void refuse_new_blobs() { refuse_new_blobs_ = true; }

  const Workspace& workspace() const { return workspace_; }
  // Workspace::send_new_blobs_to_git_folder, before the first clean.
  void send_new_blobs_to_git_folder() { workspace_.send_new_blobs_to_git_folder(); }

 private:
  // Records that git wrote `path` in the committed form, or in JP's.
  void note_form(const std::string& path, bool committed);
  // What the merge driver noted for `path` during a sequence of picks whose
  // JP's form is `input` (core/merge/sequence_record); cleans only.
  std::optional<std::string> noted_merge_result(const std::string& path, std::string_view input);

  Workspace workspace_;
  std::unique_ptr<NeedsLog> needs_log_;  // in a work tree of a repository libgit2 opens
  bool needs_log_warned_ = false;
  bool refuse_new_blobs_ = false;
  HeldInIndex held_;  // made at the first clean refuse_new_blobs_ checks
};

// Workspace::finish() once git is done with a filter, its failure a
// warning on stderr (the blob files are stored either way).
void finish(const Workspace& ws);

}  // namespace jpblob
