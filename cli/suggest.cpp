#include "suggest.hpp"

#include <algorithm>
#include <cstdint>

namespace jpblob {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows suffice: a swap looks two rows back.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      std::size_t best = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) best = std::min(best, before[j - 2] + 1);
      current[j] = best;
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::vector<std::string> similar_commands(std::string_view typed, const std::vector<std::string>& commands) {
  std::vector<std::string> out;
  if (typed.size() >= 2)
    for (const auto& c : commands)
      if (c.starts_with(typed)) out.push_back(c);
  if (!out.empty()) return out;
  std::size_t best = SIZE_MAX;
  for (const auto& c : commands) {
    const std::size_t d = edit_distance(typed, c);
    // A third of the longer word: "verfy" finds "verify", "xyz" finds no "gc".
    const std::size_t allowed = std::max<std::size_t>(1, std::max(typed.size(), c.size()) / 3);
    if (d > allowed || d > best) continue;
    if (d < best) out.clear();
    best = d;
    out.push_back(c);
  }
  return out;
}

std::string unknown_command_message(std::string_view typed, const std::vector<std::string>& similar) {
  std::string m = "git-jpblob: '" + std::string(typed) + "' is not a git-jpblob command. See 'git jpblob --help'.\n";
  if (similar.empty()) return m;
  m += similar.size() == 1 ? "\nThe most similar command is\n" : "\nThe most similar commands are\n";
  for (const auto& s : similar) m += "\t" + s + "\n";
  return m;
}

}  // namespace jpblob
