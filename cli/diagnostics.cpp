#include "cli/diagnostics.hpp"

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "core/base/error.hpp"
#include "core/git/config_reader.hpp"
#include "core/git/git_cli.hpp"
#include "core/git/git_repo.hpp"
#include "core/git/subprocess.hpp"
#include "core/maintenance/blob_status.hpp"
#include "core/maintenance/ls_files.hpp"
#include "core/lean/lean_tree.hpp"
#include "core/workspace/workspace.hpp"
#include "install/hook_folder.hpp"
#include "install/hook_managers.hpp"

namespace jpblob {

namespace fs = std::filesystem;
using nlohmann::json;

std::string version_text(const std::string& jpblob_version) {
  return "git-jpblob " + jpblob_version + "\ngit " + GitCli(fs::current_path()).version() + "\nlibgit2 " +
         libgit2_version() + "\n";
}

namespace {

// One value of `env`: text, or a yes/no that --json gives as a boolean.
struct EnvValue {
  std::string text;
  bool boolean = false;
};
using EnvLines = std::vector<std::pair<std::string, EnvValue>>;

void add(EnvLines& lines, std::string key, std::string value) { lines.emplace_back(std::move(key), EnvValue{std::move(value)}); }
void add_bool(EnvLines& lines, std::string key, bool value) {
  lines.emplace_back(std::move(key), EnvValue{value ? "true" : "false", true});
}

// "git-jpblob", "git-jpblob+chained" (ours, running a hook it chained
// first), "other+git-jpblob" (the pre-commit framework's, running ours as
// its legacy hook: install/hook_managers, framework_slot), "other" (a hook
// git-jpblob did not write) or "absent".
std::string whose_hook(const HookFolder& folder, const std::string& name) {
  if (folder.is_ours(name)) return folder.exists(chained_name(name)) ? "git-jpblob+chained" : "git-jpblob";
  if (!folder.exists(name)) return "absent";
  return folder.is_ours(name, name + ".legacy") ? "other+git-jpblob" : "other";
}

void add_work_tree(EnvLines& lines, const RepoLayout& layout) {
  const GitCli git(layout.top);
  add(lines, "repository", layout.top.string());
  const auto repo = GitRepo::open(layout.top);
  add_bool(lines, "lean", repo && is_lean(*repo));
  add(lines, "jpblob.lean", ConfigReader::through(git).get("jpblob.lean").value_or(""));
  add(lines, "hooks", layout.hooks.string());
  const HookFolder folder(layout.hooks, layout.top);
  for (const std::string& name : our_hooks()) add(lines, "hook." + name, whose_hook(folder, name));
  const auto managed = managed_hooks(layout, folder);
  add(lines, "hook_manager", managed ? managed->name : "none");
  const Workspace ws = Workspace::open(layout.top);
  add(lines, "store", ws.store().root().string());
  add(lines, "kept", ws.kept() ? ws.kept()->root().string() : "");
}

}  // namespace

void run_env_command(const std::string& jpblob_version, bool as_json) {
  const GitCli git(fs::current_path());
  EnvLines lines;
  add(lines, "binary", program_path().string());
  // What git runs: install writes the name, not the path (kProgramName).
  const auto on_path = find_on_path(kProgramName);
  add(lines, "on_path", on_path ? on_path->string() : "");
  add(lines, "version", jpblob_version);
  add(lines, "git", git.version());
  add(lines, "libgit2", libgit2_version());
  for (const char* key : {"filter.jpblob.process", "filter.jpblob.required", "diff.jpblob.textconv",
                          "merge.jpblob.driver"}) {
    const auto origin = git.config_origin(key);
    add(lines, key, origin ? origin->value : "");
    add(lines, std::string(key) + ".scope", origin ? origin->scope : "");
    add(lines, std::string(key) + ".origin", origin ? origin->origin : "");
  }
  const auto layout = git.layout();
  if (layout) {
    add_work_tree(lines, *layout);
  } else {
    // The same keys outside a work tree, empty: a script reads one shape.
    add(lines, "repository", "");
    add_bool(lines, "lean", false);
    add(lines, "jpblob.lean", ConfigReader::through(git).get("jpblob.lean").value_or(""));
    add(lines, "hooks", "");
    for (const std::string& name : our_hooks()) add(lines, "hook." + name, "");
    add(lines, "hook_manager", "");
    add(lines, "store", "");
    add(lines, "kept", "");
  }
  if (as_json) {
    json j = json::object();
    for (const auto& [key, value] : lines) j[key] = value.boolean ? json(value.text == "true") : json(value.text);
    std::cout << j.dump(2) << '\n';
    return;
  }
  for (const auto& [key, value] : lines) std::cout << key << '=' << value.text << '\n';
}

void run_ls_files_command(const std::optional<std::string>& commit, bool as_json) {
  const GitCli git(fs::current_path());
  const auto repo = GitRepo::open(fs::current_path());
  if (!repo) throw Error("ls-files must run in a git repository");
  if (!commit && !repo->workdir()) throw Error("ls-files without a commit reads the index: run it in a work tree, or name a commit");
  const auto documents = list_documents_with_blobs(*repo, git, commit);
  auto size_text = [](const ListedBlob& b) { return b.size ? std::to_string(*b.size) : std::string("-"); };
  if (as_json) {
    json docs = json::array();
    for (const ListedDocument& d : documents) {
      json blobs = json::array();
      for (const ListedBlob& b : d.blobs)
        blobs.push_back({{"digest", b.digest.hex()}, {"size", b.size ? json(*b.size) : json(nullptr)},
                         {"present", b.present}});
      docs.push_back({{"path", d.path}, {"blobs", blobs}});
    }
    std::cout << json{{"commit", commit ? json(*git.resolve_commit(*commit)) : json(nullptr)}, {"documents", docs}}.dump(2)
              << '\n';
    return;
  }
  for (const ListedDocument& d : documents) {
    std::cout << d.path << '\n';
    for (const ListedBlob& b : d.blobs)
      std::cout << "  " << (b.present ? "present " : "missing ") << b.digest.hex() << ' ' << size_text(b) << '\n';
  }
}

void run_status_command(bool as_json) {
  const GitCli git(fs::current_path());
  const auto repo = GitRepo::open(fs::current_path());
  if (!repo || !repo->workdir()) throw Error("status must run in a work tree");
  const Workspace ws = Workspace::open(*repo->workdir());
  const StatusReport report = blob_status(ws, *repo, git);
  const auto count = [&](BlobPlace p) { return report.counts[static_cast<int>(p)]; };
  if (as_json) {
    json docs = json::array();
    for (const DocumentStatus& d : report.documents) {
      json missing = json::array();
      for (const Digest& m : d.missing) missing.push_back(m.hex());
      docs.push_back({{"path", d.path}, {"state", place_name(d.place)}, {"blobs", d.blobs}, {"missing", missing},
                      {"unfiltered", d.unfiltered}});
    }
    json j = {{"lean", report.lean}, {"conversations", report.documents.size()}, {"documents", docs},
              {"unfiltered", report.unfiltered.size()},
              {"mend", report.unfiltered.empty() ? json(nullptr) : json(unfiltered_index_mend(report.unfiltered))}};
    for (BlobPlace p : {BlobPlace::Committed, BlobPlace::Staged, BlobPlace::NotStaged, BlobPlace::Missing})
      j[place_name(p)] = count(p);
    std::cout << j.dump(2) << '\n';
    return;
  }
  std::cout << "lean work tree: " << (report.lean ? "yes" : "no") << '\n'
            << report.documents.size() << " conversation(s) in the index: " << count(BlobPlace::Committed)
            << " with every blob committed, " << count(BlobPlace::Staged) << " with blobs staged, "
            << count(BlobPlace::NotStaged) << " with blobs not staged yet, " << count(BlobPlace::Missing)
            << " missing a blob" << (report.unfiltered.empty() ? "" : ", " + std::to_string(report.unfiltered.size()) +
                                                                        " committed without the filter")
            << '\n';
  const auto section = [&](BlobPlace p, const char* title) {
    if (count(p) == 0) return;
    std::cout << '\n' << title << '\n';
    for (const DocumentStatus& d : report.documents) {
      if (d.place != p) continue;
      std::cout << "  " << d.path << '\n';
      for (const Digest& m : d.missing) std::cout << "    missing " << m.hex() << '\n';
    }
  };
  section(BlobPlace::Staged, "Blobs staged, for the next commit:");
  section(BlobPlace::NotStaged,
          report.lean ? "Blobs only in the git folder (.git/jpblob); the pre-commit hook stages them:"
                      : "Blob files not staged yet; the pre-commit hook stages them:");
  section(BlobPlace::Missing, "Blobs in no copy (`git jpblob repair` looks for one anywhere git can reach):");
  if (report.unfiltered.empty()) return;
  // Committed by a clone without git-jpblob, or before adoption: git may
  // show them modified while `git diff` prints nothing.
  std::cout << "\nCommitted without the filter (payloads inline that .gitattributes have the filter store as "
               "blobs; git may show them modified while `git diff` prints nothing):\n";
  for (const std::string& path : report.unfiltered) std::cout << "  " << path << '\n';
  std::cout << "To store their payloads as blobs: " << unfiltered_index_mend(report.unfiltered) << '\n';
}

}  // namespace jpblob
