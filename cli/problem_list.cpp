#include "cli/problem_list.hpp"

#include <algorithm>
#include <map>

namespace jpblob {

ProblemList list_problems(const std::vector<Problem>& problems, std::size_t shown) {
  ProblemList list;
  const std::size_t count = std::min(shown, problems.size());
  for (std::size_t i = 0; i < count; ++i) list.shown.push_back(problems[i].line);
  list.more = problems.size() - count;
  if (list.more == 0) return list;
  std::map<ProblemKind, std::size_t> by_kind;
  for (std::size_t i = count; i < problems.size(); ++i) ++by_kind[problems[i].kind];
  std::vector<std::pair<ProblemKind, std::size_t>> kinds(by_kind.begin(), by_kind.end());
  std::stable_sort(kinds.begin(), kinds.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  list.rest = "... and " + std::to_string(list.more) + (list.more == 1 ? " more problem (" : " more problems (");
  for (std::size_t k = 0; k < kinds.size(); ++k)
    list.rest += (k ? ", " : "") + std::to_string(kinds[k].second) + " " + problem_kind_name(kinds[k].first, kinds[k].second);
  list.rest += ")";
  return list;
}

}  // namespace jpblob
