#include "core/artifacts/kept_by_git.hpp"

#include <algorithm>
#include <map>

#include "core/artifacts/artifacts.hpp"
#include "core/git/git_cli.hpp"

namespace jpblob {

namespace fs = std::filesystem;

namespace {

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.';
}

bool is_hex4(std::string_view s) {
  return s.size() >= 4 && std::all_of(s.begin(), s.begin() + 4, [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
         });
}

// The number of `artifact://<n>` at each place `prefix` starts in `text`.
void add_artifact_urls(std::string_view text, std::string_view prefix, Citations& into) {
  for (auto at = text.find(prefix); at != std::string_view::npos; at = text.find(prefix, at + 1)) {
    std::size_t end = at + prefix.size();
    while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
    const std::string_view id = text.substr(at + prefix.size(), end - at - prefix.size());
    if (is_valid_artifact_id(id)) into.artifacts.insert(std::stoull(std::string(id)));
  }
}

// Every run of name characters ending in ".log" or ".md" (a sentence's
// full stop after it dropped). After a backslash, JSON's escape letter
// ("\n", "\u00e9") may lead the run: the name without it counts too.
void add_names(std::string_view text, Citations& into) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (!name_char(text[i])) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    while (i < text.size() && name_char(text[i])) ++i;
    std::string_view run = text.substr(start, i - start);
    while (!run.empty() && run.back() == '.') run.remove_suffix(1);
    if (run.size() > 320 || !(run.ends_with(".log") || run.ends_with(".md"))) continue;
    into.names.emplace(run);
    if (start == 0 || text[start - 1] != '\\') continue;
    if (run.size() > 1 && std::string_view("nrtbf").find(run[0]) != std::string_view::npos)
      into.names.emplace(run.substr(1));
    if (run[0] == 'u' && is_hex4(run.substr(1)) && run.size() > 5) into.names.emplace(run.substr(5));
  }
}

// `p` absolute, with links resolved where it exists: two spellings of one
// folder give one key.
fs::path canonical_of(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::absolute(p), ec);
  return ec ? fs::absolute(p).lexically_normal() : c;
}

// The repository whose work tree holds `abs`, asked from the nearest
// folder that exists.
std::optional<GitRepo> repository_around(const fs::path& abs) {
  fs::path probe = abs;
  std::error_code ec;
  while (!fs::is_directory(probe, ec) && probe.has_relative_path()) probe = probe.parent_path();
  auto repo = GitRepo::open(probe);
  if (!repo || !repo->workdir()) return std::nullopt;
  return repo;
}

}  // namespace

bool Citations::cites(std::string_view name) const {
  if (names.contains(name)) return true;
  const auto dot = name.find('.');
  if (dot == std::string_view::npos || !name.ends_with(".log") || !is_valid_artifact_id(name.substr(0, dot)))
    return false;
  return artifacts.contains(std::stoull(std::string(name.substr(0, dot))));
}

void add_citations(std::string_view text, Citations& into) {
  add_artifact_urls(text, "artifact://", into);
  add_artifact_urls(text, "artifact:\\/\\/", into);  // JSON may escape a slash
  add_names(text, into);
}

fs::path session_file_of(const fs::path& dir) {
  return dir.parent_path() / (dir.filename().string() + ".jsonl");
}

KeptByGit KeptByGit::ask(const std::vector<fs::path>& paths) {
  KeptByGit kept;
  std::map<std::string, std::size_t> repo_of_top;
  std::map<std::size_t, std::vector<std::string>> pathspecs;  // by repository
  for (const fs::path& p : paths) {
    const fs::path abs = canonical_of(p);
    auto repo = repository_around(abs);
    if (!repo) continue;
    const fs::path top = canonical_of(*repo->workdir());
    const fs::path rel = abs.lexically_relative(top);
    if (rel.empty() || *rel.begin() == ".." || rel == ".") continue;
    const auto [it, added] = repo_of_top.try_emplace(top.string(), kept.repos_.size());
    if (added) kept.repos_.push_back(std::move(*repo));
    pathspecs[it->second].push_back(literal_pathspec(rel.string()));
  }
  for (const auto& [top, index] : repo_of_top) {
    for (IndexEntry& e : GitCli(top).index_entries(pathspecs[index])) {
      std::string file = (fs::path(top) / e.path).string();
      if (file.ends_with(".jsonl") && e.mode.starts_with("100")) {
        Session& session = kept.sessions_[file];
        session.repo = index;
        session.ids.push_back(std::move(e.id));
      }
      kept.tracked_.insert(std::move(file));
    }
  }
  return kept;
}

const std::optional<Citations>& KeptByGit::citations(const std::string& key) const {
  const auto cached = read_.find(key);
  if (cached != read_.end()) return cached->second;
  const Session& session = sessions_.at(key);
  std::optional<Citations> c(std::in_place);
  for (const std::string& id : session.ids) {
    const auto text = repos_[session.repo].read_object(id);
    if (!text) {
      c.reset();
      break;
    }
    add_citations(*text, *c);
  }
  return read_.emplace(key, std::move(c)).first->second;
}

std::optional<std::string> KeptByGit::why(const fs::path& dir, const std::string& name) const {
  if (tracked_.empty()) return std::nullopt;
  const fs::path folder = canonical_of(dir);
  if (tracked_.contains((folder / name).string())) return "tracked by git";
  const std::string key = session_file_of(folder).string();
  if (!sessions_.contains(key)) return std::nullopt;
  const auto& c = citations(key);
  const std::string session = session_file_of(dir).string();
  if (!c) return "its session " + session + " is tracked by git, and a staged version of it cannot be read";
  if (c->cites(name)) return "cited by " + session + ", which git tracks";
  return std::nullopt;
}

bool KeptByGit::tracks(const fs::path& file) const {
  return !tracked_.empty() && tracked_.contains(canonical_of(file).string());
}

bool KeptByGit::tracks_session(const fs::path& dir) const {
  return !sessions_.empty() && sessions_.contains(session_file_of(canonical_of(dir)).string());
}

}  // namespace jpblob
