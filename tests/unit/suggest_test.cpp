// "Did you mean": the edit distance and the choice of similar commands.
#include "cli/suggest.hpp"

#include <gtest/gtest.h>

namespace jpblob {
namespace {

const std::vector<std::string> kCommands = {"install", "uninstall", "clean", "smudge", "filter-process",
                                            "gc", "verify", "files", "print", "cat", "store", "stats"};

TEST(EditDistance, CountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("verify", "verify"), 0u);
  EXPECT_EQ(edit_distance("verfy", "verify"), 1u);    // insertion
  EXPECT_EQ(edit_distance("veriffy", "verify"), 1u);  // deletion
  EXPECT_EQ(edit_distance("verity", "verify"), 1u);   // substitution
  EXPECT_EQ(edit_distance("vreify", "verify"), 1u);   // neighbours swapped: one edit, not two
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  // The restricted form edits no substring twice: "ca" -> "ac" -> "abc" is
  // not allowed, so three edits, where unrestricted Damerau counts two.
  EXPECT_EQ(edit_distance("ca", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", "ca"), edit_distance("ca", "abc"));
}

TEST(SimilarCommands, NamesTheClosestCommand) {
  EXPECT_EQ(similar_commands("verfy", kCommands), std::vector<std::string>{"verify"});
  EXPECT_EQ(similar_commands("isntall", kCommands), std::vector<std::string>{"install"});
  EXPECT_EQ(similar_commands("stat", kCommands), std::vector<std::string>{"stats"});
}

TEST(SimilarCommands, APrefixNamesEveryCommandItBegins) {
  EXPECT_EQ(similar_commands("st", kCommands), (std::vector<std::string>{"store", "stats"}));
  EXPECT_EQ(similar_commands("filter", kCommands), std::vector<std::string>{"filter-process"});
}

TEST(SimilarCommands, KeepsEveryCommandAtTheBestDistanceInTableOrder) {
  EXPECT_EQ(similar_commands("cax", kCommands), (std::vector<std::string>{"cat"}));
  EXPECT_EQ(similar_commands("alphx", {"beta", "alphb", "alpha", "alphabet"}),
            (std::vector<std::string>{"alphb", "alpha"}));
}

TEST(SimilarCommands, NamesNothingFarFromEveryCommand) {
  EXPECT_TRUE(similar_commands("zzzzzz", kCommands).empty());
  EXPECT_TRUE(similar_commands("xyz", kCommands).empty());
  EXPECT_TRUE(similar_commands("", kCommands).empty());
}

TEST(UnknownCommandMessage, SaysItTheWayGitDoes) {
  EXPECT_EQ(unknown_command_message("verfy", {"verify"}),
            "git-jpblob: 'verfy' is not a git-jpblob command. See 'git jpblob --help'.\n"
            "\nThe most similar command is\n\tverify\n");
  EXPECT_EQ(unknown_command_message("st", {"store", "stats"}),
            "git-jpblob: 'st' is not a git-jpblob command. See 'git jpblob --help'.\n"
            "\nThe most similar commands are\n\tstore\n\tstats\n");
  EXPECT_EQ(unknown_command_message("zz", {}),
            "git-jpblob: 'zz' is not a git-jpblob command. See 'git jpblob --help'.\n");
}

}  // namespace
}  // namespace jpblob
