#include "filter.hpp"

#include <iostream>

namespace jpblob {

Filter::Filter(const std::filesystem::path& cwd,
               const std::optional<std::filesystem::path>& store_dir)
    : workspace_(Workspace::open(cwd, store_dir)) {}

void Filter::run(FilterMode mode, std::string_view input, const std::string& path,
                 const OutputSink& out) const {
  const std::string name = path.empty() ? std::string("<stdin>") : path;
  TransformReport report;
  if (mode == FilterMode::Clean) {
    CleanOptions options;
    options.min_size = workspace_.settings().min_size;
    options.path = name;
    report = clean(input, workspace_.store(), options, out);
  } else if (workspace_.settings().smudge_refs_only) {
    out(input);  // JPBLOB_SKIP_SMUDGE=1 or jpblob.smudge=refs: the committed form
  } else {
    SmudgeOptions options;
    options.path = name;
    report = smudge(input, workspace_.blobs(), options, out);
  }
  if (report.warning) std::cerr << "git-jpblob: warning: " << *report.warning << std::endl;
}

}  // namespace jpblob
