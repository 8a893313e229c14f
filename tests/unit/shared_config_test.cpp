// `.jpblobconfig` (core/workspace/shared_config): git config syntax, parsed without
// following anything, deciding the settings that change committed bytes.
#include "core/workspace/shared_config.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "core/base/error.hpp"
#include "core/workspace/workspace.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

using Pairs = std::vector<std::pair<std::string, std::string>>;

TEST(SharedConfig, ParsesGitConfigSyntax) {
  const std::string text =
      "# a comment\n"
      "[jpblob]\n"
      "\tminSize = 2k   ; trailing comment\n"
      "  compressionLevel=9\n"
      "[Section \"Sub.Case\"]\n"
      "  flag\n"
      "  quoted = \"a # not a comment\" tail \n"
      "  escaped = x\\ty\\\"z\\\\\n"
      "  joined = one\\\n"
      "two\n"
      "[include]\n"
      "  path = /etc/passwd\n";
  EXPECT_EQ(parse_config_text(text, "t"), (Pairs{{"jpblob.minsize", "2k"},
                                                 {"jpblob.compressionlevel", "9"},
                                                 {"section.Sub.Case.flag", "true"},
                                                 {"section.Sub.Case.quoted", "a # not a comment tail"},
                                                 {"section.Sub.Case.escaped", "x\ty\"z\\"},
                                                 {"section.Sub.Case.joined", "onetwo"},
                                                 {"include.path", "/etc/passwd"}}));
}

TEST(SharedConfig, MalformedTextNamesTheLine) {
  for (const char* text : {"[jpblob\nminSize=1\n", "minSize=1\n", "[jpblob]\nminSize=\"open\n",
                           "[jpblob]\n=1\n", "[jpblob]\nminSize=a\\q\n"}) {
    try {
      parse_config_text(text, ".jpblobconfig");
      FAIL() << text;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(".jpblobconfig, line "), std::string::npos) << e.what();
    }
  }
}

TEST(SharedConfig, DecidesOnlyTheKeysThatChangeCommittedBytes) {
  test::GitSandbox g;
  g.git("config jpblob.minSize 1");
  g.git("config jpblob.compressionLevel 1");
  g.git("config jpblob.fsync false");
  std::ofstream(g.repo() / ".jpblobconfig")
      << "[jpblob]\n  minSize = 300\n  compressionLevel = 9\n  fsync = true\n  smudge = refs\n";
  auto repo = GitRepo::open(g.repo());
  const SafeDir top = SafeDir::open(g.repo());
  const Settings s = load_settings(&*repo, &top);
  EXPECT_EQ(s.min_size, 300u);
  EXPECT_EQ(s.store.compression_level, 9);
  EXPECT_FALSE(s.store.fsync);        // personal: the user's own
  EXPECT_FALSE(s.smudge_refs_only);   // personal
  {
    // A personal `git -c` does not change committed bytes either.
    test::ScopedEnv p("GIT_CONFIG_PARAMETERS", "'jpblob.minSize'='7'");
    EXPECT_EQ(load_settings(&*repo, &top).min_size, 300u);
  }
  // Without the file, the personal settings hold.
  std::filesystem::remove(g.repo() / ".jpblobconfig");
  EXPECT_EQ(load_settings(&*repo, &top).min_size, 1u);
}

TEST(SharedConfig, ALinkIsRefused) {
  test::GitSandbox g;
  test::TempDir outside;
  std::ofstream(outside / "cfg") << "[jpblob]\nminSize=5\n";
  std::filesystem::create_symlink(outside / "cfg", g.repo() / ".jpblobconfig");
  const SafeDir top = SafeDir::open(g.repo());
  EXPECT_THROW(read_shared_config(top), Error);
}

}  // namespace
}  // namespace jpblob
