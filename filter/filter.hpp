// The filter as git runs it, in either mode: one-shot (`clean`/`smudge`,
// one process a file) or long-running (`filter-process`). Both go through
// one Filter, so both give the same bytes for the same file.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "core/transform.hpp"
#include "core/workspace.hpp"

namespace jpblob {

enum class FilterMode { Clean, Smudge };

class Filter {
 public:
  // Opens the workspace for a filter run in `cwd` (git runs filters at the
  // top of the work tree). Throws Error when the store is unusable.
  Filter(const std::filesystem::path& cwd, const std::optional<std::filesystem::path>& store_dir);

  // Filters one file. `path` is git's name for it, for messages. Warnings
  // go to stderr, one line each, prefixed "git-jpblob: warning: ". Throws
  // Error on failure, having written nothing to `out`.
  void run(FilterMode mode, std::string_view input, const std::string& path,
           const OutputSink& out) const;

  const Workspace& workspace() const { return workspace_; }

 private:
  Workspace workspace_;
};

}  // namespace jpblob
