#include "core/merge/sequence_record.hpp"

#include <system_error>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/format/digest.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

constexpr const char* kNotes = "jpblob-merged";

// Where the filter looks first, one stat a clean: that this worktree has
// notes in some sequence (they go with its folder; this file stays until a
// clean finds no sequence).
fs::path marker(const fs::path& gitdir) { return gitdir / "jpblob" / "sequence-merged"; }

// One file a path and JP's form, named by their digest: a path may hold
// any byte but a NUL, a file name may not hold a slash.
std::string note_name(const std::string& path, std::string_view jp_form) {
  Sha256 h;
  h.update(path);
  h.update(std::string_view("\0", 1));
  h.update(jp_form);
  return h.finish().hex();
}

}  // namespace

std::optional<fs::path> sequence_folder(const fs::path& gitdir) {
  // git's own names: a rebase's (the merge backend, and the apply one that
  // `git am` shares) and the sequencer's, for a range of picks or reverts.
  for (const char* name : {"rebase-merge", "rebase-apply", "sequencer"}) {
    std::error_code ec;
    if (fs::is_directory(gitdir / name, ec)) return gitdir / name;
  }
  return std::nullopt;
}

void note_merge_result(const Workspace& ws, const std::string& path, DocumentKind kind, std::string_view result) {
  if (!ws.repo()) return;
  const auto folder = sequence_folder(ws.repo()->gitdir());
  if (!folder) return;
  const std::uint64_t min_size = ws.settings().clean_options(path, InputForm::Committed).min_size;
  if (document_needs(kind, result, min_size, InputForm::Committed).inline_payloads.empty()) return;
  // What git will check out: the filter's smudge of the result.
  std::string jp_form;
  smudge_document(kind, result, ws.blobs(), ws.settings().smudge_options(path),
                  [&](std::string_view piece) { jp_form.append(piece); });
  fs::create_directories(*folder / kNotes);
  write_file_atomic(*folder / kNotes / note_name(path, jp_form), result);
  const fs::path mark = marker(ws.repo()->gitdir());
  std::error_code ec;
  if (fs::exists(mark, ec)) return;
  fs::create_directories(mark.parent_path());
  write_file_atomic(mark, "");
}

std::optional<std::string> noted_merge_result(const fs::path& gitdir, const std::string& path,
                                              std::string_view input) {
  std::error_code ec;
  if (!fs::exists(marker(gitdir), ec)) return std::nullopt;
  const auto folder = sequence_folder(gitdir);
  if (!folder) {
    fs::remove(marker(gitdir), ec);  // the sequence ended, and its notes with it
    return std::nullopt;
  }
  const fs::path file = *folder / kNotes / note_name(path, input);
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  return read_file(file);
}

}  // namespace jpblob
