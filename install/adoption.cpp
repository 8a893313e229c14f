#include "adoption.hpp"

#include <set>

#include "core/base/error.hpp"
#include "core/documents/document.hpp"
#include "core/git/git_repo.hpp"
#include "core/maintenance/migrate.hpp"
#include "core/workspace/workspace.hpp"

namespace jpblob {

namespace {

// JP's form back for what a checkout without the filter left.
void restore_jp_form(const Workspace& ws, std::vector<std::string>& lines) {
  const CheckoutReport r = restore_unfiltered_checkout(ws, {});
  if (!r.restored.empty())
    lines.push_back("Gave " + std::to_string(r.restored.size()) + " conversation file(s) JP's form back: they were "
                    "checked out before git-jpblob was installed, in their committed reference form.");
  if (!r.problems.empty())
    lines.push_back("warning: " + std::to_string(r.problems.size()) + " conversation file(s) stay in their committed "
                    "reference form: " + r.problems.front() + " (`git jpblob checkout` tries again)");
}

// The folders (`.jp`, `.claude`) whose staged documents hold a payload
// clean would move out, when no committed .gitattributes routes anything
// to the filter yet; empty otherwise. Reads documents until the first
// such one.
std::set<std::string> inline_roots(const Workspace& ws) {
  const GitRepo& repo = *ws.repo();
  if (repo.read_head(".gitattributes").value_or("").find("filter=jpblob") != std::string::npos) return {};
  std::set<std::string> roots;
  bool found = false;
  for (const IndexEntry& e : GitCli(ws.top()).index_entries(document_pathspecs())) {
    if (e.stage != 0 || (e.mode != "100644" && e.mode != "100755")) continue;
    roots.insert(e.path.substr(0, e.path.find('/')));
    if (found) continue;
    const auto text = repo.read_object(e.id);
    if (text && !document_needs(document_kind(e.path), *text, ws.settings().min_size, InputForm::Committed)
                     .inline_payloads.empty())
      found = true;
  }
  return found ? roots : std::set<std::string>{};
}

std::string adoption_steps(const std::set<std::string>& roots) {
  std::string folders;
  for (const std::string& r : roots) folders += " " + r;
  return "The conversations this repository commits hold their payloads inline (committed before git-jpblob), "
         "so git status shows them modified: that is their new committed form. To adopt git-jpblob for the whole "
         "team, in one commit that leaves history as it is, run\n"
         "    git add .gitattributes\n"
         "    git add --renormalize" + folders + "\n"
         "    git commit -m \"Adopt git-jpblob: payloads in .jp/blobs\"\n"
         "and have each teammate run `git jpblob install` once.";
}

}  // namespace

std::vector<std::string> documents_after_install(const RepoLayout& layout) {
  std::vector<std::string> lines;
  try {
    const Workspace ws = Workspace::open(layout.top, std::nullopt, SharedSettings::Later);
    if (!ws.in_work_tree() || !ws.repo()) return lines;
    restore_jp_form(ws, lines);
    if (const auto roots = inline_roots(ws); !roots.empty()) lines.push_back(adoption_steps(roots));
  } catch (const std::exception& e) {
    lines.push_back(std::string("warning: cannot look at the conversations here: ") + e.what());
  }
  return lines;
}

}  // namespace jpblob
