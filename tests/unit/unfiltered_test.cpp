// A conversation committed without the filter (core/maintenance/unfiltered),
// judged by CommitChecker against real git histories: no filter is
// configured here, so `git add` commits what the work tree holds, as a
// teammate without git-jpblob does.
#include "core/maintenance/unfiltered.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "core/format/base64.hpp"
#include "core/git/subprocess.hpp"
#include "core/maintenance/commit_check.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

constexpr const char* kPath = ".jp/conversations/1-a/events.json";
constexpr const char* kAdopted = ".jp/conversations/**/events.json filter=jpblob -text\n";

// One tool output event, its content `text` base64-encoded (a payload).
std::string event(const std::string& text) {
  return "  {\"timestamp\": \"2026-04-10 17:04:24.923537\", \"type\": \"tool_call_response\", \"id\": \"t\", "
         "\"content\": \"" + base64_encode(text, Base64Alphabet::Standard) + "\", \"is_error\": false}";
}

std::string conversation(const std::vector<std::string>& outputs) {
  std::string out = "[\n";
  for (std::size_t i = 0; i < outputs.size(); ++i) out += (i ? ",\n" : "") + event(outputs[i]);
  return out + "\n]\n";
}

const std::string kFirst(200, 'a'), kSecond(300, 'b'), kSmall(100, 'c');

struct History {
  test::FormatRepo r{"sha1"};

  std::string commit(const std::string& message) {
    r.git("add -A");
    r.git("commit -q --no-verify --allow-empty -m '" + message + "'");
    return head();
  }
  std::string head() const {
    std::string id = r.git("rev-parse HEAD");
    return id.substr(0, id.find('\n'));
  }
  // The problems of kind Unfiltered that `commit` (HEAD) has; with `tips`,
  // those some tip still holds (CommitChecker::drop_mended).
  std::vector<Problem> unfiltered(std::uint64_t min_size = 0, std::string commit = {},
                                  const std::vector<std::string>& tips = {}) const {
    if (commit.empty()) commit = head();
    const auto repo = GitRepo::open(r.dir.path());
    const GitCli git(r.dir.path());
    CommitChecker checker(*repo, git, kDefaultMaxBlobSize, min_size);
    std::string line = r.git("rev-list --parents -n1 " + commit);
    std::vector<std::string> parents;
    for (const auto field : split_fields(line.substr(0, line.find('\n'))))
      if (!field.empty()) parents.emplace_back(field);
    parents.erase(parents.begin());
    std::vector<Problem> problems;
    std::size_t references = 0;
    checker.check(commit, references, problems, &parents);
    if (!tips.empty()) checker.drop_mended(problems, tips);
    std::erase_if(problems, [](const Problem& p) { return p.kind != ProblemKind::Unfiltered; });
    return problems;
  }
};

TEST(Unfiltered, NeverFlagsCommitsFromBeforeAdoption) {
  History h;
  h.r.write(kPath, conversation({kFirst}));
  h.commit("inline, no attributes");
  EXPECT_TRUE(h.unfiltered().empty());
  h.r.write(kPath, conversation({kFirst, kSecond}));
  h.commit("a turn, no attributes");
  EXPECT_TRUE(h.unfiltered().empty());
  // Other attributes, none of them jpblob's.
  h.r.write(".gitattributes", "*.png binary\n");
  h.r.write(kPath, conversation({kFirst, kSecond, kSmall}));
  h.commit("other attributes");
  EXPECT_TRUE(h.unfiltered().empty());
}

TEST(Unfiltered, FlagsOnlyWhatACommitOfTheAdoptedHistoryBringsIn) {
  History h;
  h.r.write(kPath, conversation({kFirst}));
  h.commit("before adoption");
  h.r.write(".gitattributes", kAdopted);
  h.commit("adopted without --renormalize");
  EXPECT_TRUE(h.unfiltered().empty()) << "a file carried over unchanged";
  h.r.write(kPath, conversation({kFirst, kSecond}));
  const std::string c = h.commit("a turn without the filter");
  const auto problems = h.unfiltered();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].line.rfind("commit " + c.substr(0, 12) + ": " + kPath +
                                       " was committed without the jpblob filter: it holds 1 payload inline",
                                   0),
            0u)
      << problems[0].line;
  EXPECT_NE(problems[0].mend.find("`git add --renormalize .jp`"), std::string::npos) << problems[0].mend;
  h.commit("nothing changed");
  EXPECT_TRUE(h.unfiltered().empty()) << "the file is the parent's";
}

TEST(Unfiltered, FlagsARootCommitThatHoldsItsOwnAttributes) {
  History h;
  h.r.write(".gitattributes", kAdopted);
  h.r.write(kPath, conversation({kFirst, kSecond}));
  h.commit("root");
  const auto problems = h.unfiltered();
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].line.find("holds 2 payloads inline"), std::string::npos) << problems[0].line;
}

TEST(Unfiltered, ReadsMinSizeFromTheCommitsOwnJpblobconfig) {
  History h;
  h.r.write(".gitattributes", kAdopted);
  h.r.write(".jpblobconfig", "[jpblob]\n\tminSize = 250\n");
  h.r.write(kPath, conversation({kFirst}));
  h.commit("a payload below the shared minSize");
  EXPECT_TRUE(h.unfiltered().empty());
  h.r.write(kPath, conversation({kFirst, kSecond}));
  h.commit("one above it");
  EXPECT_EQ(h.unfiltered().size(), 1u);
  // Without a shared file, the personal setting clean used.
  h.r.git("rm -q .jpblobconfig");
  h.r.write(kPath, conversation({kFirst, kSecond, kSmall}));
  h.commit("below a personal 1k");
  EXPECT_TRUE(h.unfiltered(1024).empty());
  EXPECT_EQ(h.unfiltered(0).size(), 1u);
}

TEST(Unfiltered, AsksGitForTheCommitsAttributesOnly) {
  History h;
  // A macro: git's rule decides, not a search for "filter=jpblob".
  h.r.write(".gitattributes", "[attr]jp filter=jpblob -text\n.jp/conversations/**/events.json jp\n");
  h.r.write(kPath, conversation({kFirst}));
  const std::string macro = h.commit("through a macro");
  EXPECT_EQ(h.unfiltered().size(), 1u);
  // A nested file takes the filter away again.
  h.r.write(".jp/.gitattributes", "conversations/**/events.json -filter\n");
  h.r.write(kPath, conversation({kFirst, kSecond}));
  h.commit("nested -filter");
  EXPECT_TRUE(h.unfiltered().empty());
  // The user's own attributes file, and the work tree's, are nobody's commit.
  h.r.write(".jp/.gitattributes", "");
  test::write_text(h.r.home / "attributes", kAdopted);
  h.r.git("config core.attributesFile " + (h.r.home / "attributes").string());
  h.r.write(".gitattributes", "elsewhere/** filter=jpblob\n");
  h.r.write(kPath, conversation({kFirst, kSecond, kSmall}));
  h.commit("jpblob for other paths only");
  h.r.write(".gitattributes", kAdopted);
  EXPECT_TRUE(h.unfiltered().empty());
  EXPECT_EQ(h.unfiltered(0, macro).size(), 1u) << "attributes are the commit's, not HEAD's";
}

TEST(Unfiltered, IsAProblemWhileABranchStillHoldsWhatItBroughtIn) {
  History h;
  h.r.write(".gitattributes", kAdopted);
  h.commit("adopted, no conversation yet");
  h.r.write(kPath, conversation({kFirst}));
  const std::string a = h.commit("brings kFirst in");
  h.r.write(kPath, conversation({kSecond}));
  const std::string b = h.commit("kFirst gone, kSecond brought in");
  EXPECT_EQ(h.unfiltered(0, a, {a}).size(), 1u);
  EXPECT_TRUE(h.unfiltered(0, a, {b}).empty()) << "the tip holds another commit's payload, not a's";
  EXPECT_EQ(h.unfiltered(0, a, {b, a}).size(), 1u) << "another branch still holds it";
  EXPECT_EQ(h.unfiltered(0, b, {b}).size(), 1u);
}

}  // namespace
}  // namespace jpblob
