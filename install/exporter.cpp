#include "exporter.hpp"

#include "core/base/error.hpp"
#include "core/base/safe_path.hpp"
#include "core/documents/document.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"
#include "core/store/blob_store.hpp"
#include "core/workspace/workspace.hpp"
#include "install_parts.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

// .gitattributes without install's lines (any version's), and how many left.
std::pair<std::string, std::size_t> without_our_lines(const std::string& text) {
  std::string kept;
  std::size_t removed = 0;
  for (const auto& line : split_lines(text)) {
    if (is_our_attribute_line(without_newline(line))) ++removed;
    else kept += line;
  }
  return {kept, removed};
}

bool blank(const std::string& text) { return text.find_first_not_of(" \t\r\n") == std::string::npos; }

// A document staged in its committed form, and JP's form of it.
struct Restored {
  IndexEntry entry;
  std::string committed, jp_form;
};

// Everything export changes, worked out before anything changes.
struct Plan {
  std::vector<Restored> documents;
  std::optional<IndexEntry> attributes_entry;  // the staged .gitattributes
  std::string staged_attributes;               // its text without our lines
  std::size_t attribute_lines = 0;
  std::size_t blobs = 0;
};

// Refuses what export cannot do cleanly; the repository's layout otherwise.
RepoLayout check_repository(const GitCli& git) {
  const auto layout = git.layout();
  if (!layout) throw Error("export must run in a git work tree");
  if (!git.resolve_commit("HEAD")) throw Error("nothing is committed here yet, so there is nothing to export");
  const auto staged = git.staged_changes({});
  if (!staged.empty())
    throw Error("the index holds changes that are not committed (" + std::to_string(staged.size()) + " path(s), " +
                    staged.front().path + " among them): commit them or take them out of the index (`git stash`), "
                    "so that the export commit holds the export alone",
                ErrorKind::Problem);
  return *layout;
}

// Each document the attributes route to the filter, smudged from what
// the index stages; one they do not route is committed as it is already.
void plan_documents(const Workspace& ws, const GitCli& git, Plan& plan) {
  std::vector<IndexEntry> documents = git.index_entries(document_pathspecs());
  std::erase_if(documents, [](const IndexEntry& e) { return e.stage != 0 || (e.mode != "100644" && e.mode != "100755"); });
  std::vector<std::string> paths;
  for (const IndexEntry& e : documents) paths.push_back(e.path);
  const auto filter_of = git.filters_of(paths);
  std::vector<std::string> problems;
  for (const IndexEntry& e : documents) {
    if (const auto f = filter_of.find(e.path); f == filter_of.end() || f->second != "jpblob") continue;
    const auto committed = ws.repo()->read_object(e.id);
    if (!committed) {
      problems.push_back("the staged " + e.path + " is not in git's objects");
      continue;
    }
    std::string jp_form;
    try {
      const TransformReport r = smudge_document(document_kind(e.path), *committed, ws.blobs(),
                                                ws.settings().smudge_options(e.path),
                                                [&](std::string_view s) { jp_form.append(s); });
      for (const auto& w : r.warnings) problems.push_back(e.path + ": " + w);
    } catch (const Error& err) {
      problems.push_back(err.what());
      continue;
    }
    if (jp_form != *committed) plan.documents.push_back({e, *committed, std::move(jp_form)});
  }
  if (!problems.empty())
    throw Error("cannot export: " + std::to_string(problems.size()) + " document(s) cannot be given JP's form, " +
                    problems.front() + " (`git jpblob repair` writes a blob again from any good copy)",
                ErrorKind::Problem);
}

// A blob file that differs from what the index holds would make `git rm`
// refuse halfway through; it is refused here, before any change.
void check_blob_files(const Workspace& ws, const std::vector<IndexEntry>& blobs) {
  for (const IndexEntry& e : blobs) {
    if (e.skip_worktree) continue;
    const auto bytes = ws.base()->read(e.path);
    if (bytes && ws.repo()->hash_blob(*bytes) != e.id)
      throw Error("cannot export: " + e.path + " differs from the blob the index holds under its name; "
                      "`git checkout -- " + e.path + "` gives it back",
                  ErrorKind::Problem);
  }
}

Plan make_plan(const Workspace& ws, const GitCli& git) {
  Plan plan;
  plan_documents(ws, git, plan);
  for (const IndexEntry& e : git.index_entries({literal_pathspec(".gitattributes")})) {
    if (e.stage != 0 || e.path != ".gitattributes") continue;
    const auto text = ws.repo()->read_object(e.id);
    if (!text) throw Error("cannot read the staged .gitattributes");
    std::tie(plan.staged_attributes, plan.attribute_lines) = without_our_lines(*text);
    if (plan.attribute_lines) plan.attributes_entry = e;
  }
  std::vector<IndexEntry> blobs = git.index_entries({literal_pathspec(kWorkTreeStore)});
  std::erase_if(blobs, [](const IndexEntry& e) { return e.stage != 0; });
  check_blob_files(ws, blobs);
  plan.blobs = blobs.size();
  return plan;
}

// .gitattributes first, in the index (git falls back to its copy where
// the work tree has none) and then in the work tree: from then on no
// filter runs, and none can write a blob file back while `git rm` takes
// the store out. What is staged is what the commit holds.
void apply(const Workspace& ws, const GitCli& git, const Plan& plan) {
  if (plan.attributes_entry && !blank(plan.staged_attributes)) {
    git.set_index_ids({{plan.attributes_entry->mode, ws.repo()->write_blob(plan.staged_attributes), 0, ".gitattributes"}});
  } else if (plan.attributes_entry) {
    git.remove_from_index({".gitattributes"});
  }
  const SafeDir& top = *ws.base();
  if (const auto text = top.read(".gitattributes")) {
    const auto [kept, removed] = without_our_lines(*text);
    if (removed && blank(kept)) top.remove(".gitattributes");
    else if (removed) top.write_atomic(".gitattributes", kept);
  }
  if (plan.blobs) git.remove_tracked(std::string(kWorkTreeStore));
  std::vector<IndexEntry> entries;
  for (const Restored& d : plan.documents)
    entries.push_back({d.entry.mode, ws.repo()->write_blob(d.jp_form), 0, d.entry.path});
  git.set_index_ids(entries);
  // A file still as committed gets JP's form; one the user changed stays.
  for (const Restored& d : plan.documents) {
    if (top.read(d.entry.path) != d.committed) continue;
    top.write_atomic(d.entry.path, d.jp_form);
    if (ws.committed_form()) ws.committed_form()->note(d.entry.path, false);
  }
  if (ws.committed_form()) ws.committed_form()->flush();
}

}  // namespace

std::string export_message() {
  return "Leave git-jpblob: conversations in JP's form\n\n"
         "Every conversation is committed as JP wrote it, git-jpblob's lines leave\n"
         ".gitattributes and .jp/blobs leaves the index (`git jpblob export`).\n"
         "Earlier commits still hold references: checking one out needs git-jpblob.\n";
}

ExportReport export_repository(const fs::path& cwd, bool dry_run) {
  const RepoLayout layout = check_repository(GitCli(cwd));
  const GitCli git(layout.top);
  const Workspace ws = Workspace::open(layout.top, std::nullopt, SharedSettings::Later);
  if (!ws.repo() || !ws.base()) throw Error("export must run in a git work tree");
  const Plan plan = make_plan(ws, git);
  ExportReport report;
  for (const Restored& d : plan.documents) report.documents.push_back(d.entry.path);
  report.attribute_lines = plan.attribute_lines;
  report.blobs = plan.blobs;
  if (dry_run || report.nothing_to_do()) return report;
  apply(ws, git, plan);
  try {
    report.commit = git.commit(export_message());
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + "; the export is staged: finish it with `git commit --no-verify`");
  }
  // Entries staged by id have no stat data: status would read each again.
  git.refresh_index();
  return report;
}

}  // namespace jpblob
