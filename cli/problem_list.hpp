// A long list of problems for people: the first few, then the rest counted
// by kind. One push of 200,000 references to missing blobs gave the pusher
// 40 MB of `remote:` output, a line a blob; the pre-commit, pre-push and
// pre-receive refusals and `verify` (without --json, which lists them all)
// now print at most kShownProblems, then "... and K more problems (M
// missing blobs, …)", counted by each Problem's kind, never by its words; a
// mend the same for many (restoring a blob) is said once, in the refusal
// (e2e pre_push: 5,000 missing blobs, each report under 10 KB).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/base/problem.hpp"

namespace jpblob {

// git lists the commits a checkout leaves behind up to a cutoff, then
// " ... and %d more." (builtin/checkout.c, ORPHAN_CUTOFF); twenty lines
// keep a refusal, its count and its mend on one screen.
inline constexpr std::size_t kShownProblems = 20;

struct ProblemList {
  std::vector<std::string> shown;  // the first problems' lines, in order
  std::size_t more = 0;            // how many are not shown
  // When more > 0: "... and K more problems (M missing blobs, C corrupt
  // blobs)", the rest counted by kind, the largest count first.
  std::string rest;
};

ProblemList list_problems(const std::vector<Problem>& problems, std::size_t shown = kShownProblems);

}  // namespace jpblob
