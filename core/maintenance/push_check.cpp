#include "core/maintenance/push_check.hpp"

#include <unordered_map>
#include <unordered_set>

#include "core/base/error.hpp"
#include "core/base/trace.hpp"
#include "core/maintenance/commit_check.hpp"

namespace jpblob {

namespace {

// A problem line without its "commit <id>: ", the same for every commit
// that has it.
std::string without_commit(const std::string& problem) {
  const auto colon = problem.find(": ");
  return colon == std::string::npos ? problem : problem.substr(colon + 2);
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < line.size()) {
    const auto end = line.find(' ', i);
    if (end != i) out.push_back(line.substr(i, end == std::string::npos ? std::string::npos : end - i));
    if (end == std::string::npos) break;
    i = end + 1;
  }
  return out;
}

}  // namespace

PushCheckReport check_push(const GitRepo& repo, const GitCli& git, std::uint64_t max_blob_size, std::uint64_t min_size,
                           const std::vector<std::string>& tips, const std::vector<std::string>& have) {
  PushCheckReport report;
  if (tips.empty()) return report;
  // Parents before children, so that a commit's parents are judged first.
  std::vector<std::string> args = {"--topo-order", "--reverse", "--parents"};
  args.insert(args.end(), tips.begin(), tips.end());
  args.push_back("--not");
  args.insert(args.end(), have.begin(), have.end());
  std::vector<std::vector<std::string>> sent;  // commit, then its parents
  std::unordered_set<std::string> sent_ids;
  for (const std::string& line : git.rev_list(args)) {
    auto ids = words(line);
    if (ids.empty()) continue;
    sent_ids.insert(ids[0]);
    sent.push_back(std::move(ids));
  }
  CommitChecker checker(repo, git, max_blob_size, min_size);
  std::unordered_map<std::string, std::unordered_set<std::string>> problems_of;  // commit -> without_commit lines
  auto held_problems = [&](const std::string& commit) -> const std::unordered_set<std::string>& {
    auto known = problems_of.find(commit);
    if (known != problems_of.end()) return known->second;
    std::unordered_set<std::string> lines;
    std::vector<Problem> problems;
    std::size_t references = 0;
    try {
      checker.check(commit, references, problems);
    } catch (const Error&) {
      // A parent this repository lacks (a shallow clone's edge) has
      // nothing to hand down: its children's problems are theirs.
    }
    for (const Problem& p : problems) lines.insert(without_commit(p.line));
    return problems_of.emplace(commit, std::move(lines)).first->second;
  };
  for (const auto& ids : sent) {
    std::vector<Problem> problems;
    const std::vector<std::string> parents(ids.begin() + 1, ids.end());
    checker.check(ids[0], report.references, problems, &parents);
    ++report.commits;
    std::unordered_set<std::string> lines;
    for (Problem& p : problems) {
      std::string line = without_commit(p.line);
      bool inherited = false;
      // A document committed without the filter is flagged only where a
      // commit changed it (UnfilteredCheck): never a parent's.
      for (std::size_t k = 1; k < ids.size() && !inherited && p.kind != ProblemKind::Unfiltered; ++k) {
        // A parent the push sends was judged before (topological order).
        const auto& parent = sent_ids.count(ids[k]) ? problems_of[ids[k]] : held_problems(ids[k]);
        inherited = parent.count(line) > 0;
      }
      if (!inherited) report.problems.push_back(std::move(p));
      lines.insert(std::move(line));
    }
    problems_of[ids[0]] = std::move(lines);
  }
  checker.drop_mended(report.problems, tips);
  return report;
}

void trace_push_verdict(const std::string& hook, const std::vector<std::string>& tips, const PushCheckReport& report) {
  JPBLOB_TRACE(hook + ": " + std::to_string(report.commits) + " commits of" + quote_argv_pretty(tips) + " checked, " +
               std::to_string(report.references) + " references: " +
               (report.problems.empty() ? "push accepted"
                                        : "push refused (" + std::to_string(report.problems.size()) + " problems)"));
}

}  // namespace jpblob
