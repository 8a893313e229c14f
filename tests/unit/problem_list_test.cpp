// A long list of problems: the first few lines, then the rest counted by
// kind (issue 44: a push of 200,000 missing blobs printed 40 MB).
#include "cli/problem_list.hpp"

#include <gtest/gtest.h>

namespace jpblob {
namespace {

std::vector<Problem> problems(std::size_t missing, std::size_t corrupt) {
  std::vector<Problem> out;
  for (std::size_t i = 0; i < missing; ++i) out.push_back({ProblemKind::MissingBlob, "missing " + std::to_string(i)});
  for (std::size_t i = 0; i < corrupt; ++i) out.push_back({ProblemKind::CorruptBlob, "corrupt " + std::to_string(i)});
  return out;
}

TEST(ProblemList, AShortListIsShownWhole) {
  const ProblemList list = list_problems(problems(3, 2));
  EXPECT_EQ(list.shown, (std::vector<std::string>{"missing 0", "missing 1", "missing 2", "corrupt 0", "corrupt 1"}));
  EXPECT_EQ(list.more, 0u);
  EXPECT_EQ(list.rest, "");
  EXPECT_EQ(list_problems(problems(kShownProblems, 0)).more, 0u);
}

TEST(ProblemList, ALongOneShowsTheFirstAndCountsTheRestByKind) {
  const ProblemList list = list_problems(problems(10, 200000));
  ASSERT_EQ(list.shown.size(), kShownProblems);
  EXPECT_EQ(list.shown.front(), "missing 0");
  EXPECT_EQ(list.shown.back(), "corrupt 9");
  EXPECT_EQ(list.more, 200000u - 10);
  EXPECT_EQ(list.rest, "... and 199990 more problems (199990 corrupt blobs)");
  std::vector<Problem> mixed = problems(kShownProblems, 0);
  mixed.push_back({ProblemKind::SymbolicLink, "link"});
  mixed.push_back({ProblemKind::MissingBlob, "missing"});
  mixed.push_back({ProblemKind::MissingBlob, "missing"});
  EXPECT_EQ(list_problems(mixed).rest, "... and 3 more problems (2 missing blobs, 1 symbolic link)");
  mixed.resize(kShownProblems + 1);
  EXPECT_EQ(list_problems(mixed).rest, "... and 1 more problem (1 symbolic link)");
}

}  // namespace
}  // namespace jpblob
