// The one reader of git config (core/git/config_reader): in-process with
// `git -c` on top, through the git program at a scope, and a config file's
// text read by git itself, never following an include.
#include "core/git/config_reader.hpp"

#include <gtest/gtest.h>

#include "core/base/error.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;
using Pairs = std::vector<std::pair<std::string, std::string>>;
using test::GitSandbox;
using test::ScopedEnv;

TEST(ConfigReader, InProcessReadsTheFilesWithGitDashCOnTop) {
  GitSandbox g;
  g.git("config jpblob.minSize 2k");
  g.git("config jpblob.fsync off");
  g.git("config jpblob.smudge refs");
  auto repo = GitRepo::open(g.repo());
  ASSERT_TRUE(repo);
  const ConfigReader config = ConfigReader::of(&*repo);
  EXPECT_EQ(config.get("jpblob.minSize"), "2k");
  EXPECT_EQ(config.get("JPBLOB.MINSIZE"), "2k");  // section and variable names are git's: any case
  EXPECT_EQ(config.get_size("jpblob.minSize"), 2048u);
  EXPECT_EQ(config.get_bool("jpblob.fsync"), false);
  EXPECT_EQ(config.get("jpblob.absent"), std::nullopt);
  EXPECT_EQ(config.get_bool("jpblob.absent"), std::nullopt);
  EXPECT_NE(test::error_of([&] { config.get_bool("jpblob.smudge"); }).find("jpblob.smudge"), std::string::npos);
  EXPECT_NE(test::error_of([&] { config.get_size("jpblob.smudge"); }).find("is not a size"), std::string::npos);
  {
    // libgit2 1.5 ignores `git -c`; the reader does not.
    ScopedEnv p("GIT_CONFIG_PARAMETERS", "'jpblob.minSize'='7' 'jpblob.fsync'='yes'");
    EXPECT_EQ(config.get_size("jpblob.minSize"), 7u);
    EXPECT_EQ(config.get_bool("jpblob.fsync"), true);
    // With no repository, `git -c` is all there is.
    EXPECT_EQ(ConfigReader::of(nullptr).get("jpblob.minSize"), "7");
    EXPECT_EQ(ConfigReader::of(nullptr).get("jpblob.smudge"), std::nullopt);
  }
}

TEST(ConfigReader, ThroughGitReadsEveryScopeOrOne) {
  GitSandbox g;
  g.git("config --global jpblob.lean false");
  g.git("config jpblob.autoInstallHook YES");
  const GitCli git(g.repo());
  EXPECT_EQ(ConfigReader::through(git).get("jpblob.lean"), "false");
  EXPECT_EQ(ConfigReader::through(git, ConfigScope::Local).get("jpblob.lean"), std::nullopt);
  EXPECT_EQ(ConfigReader::through(git, ConfigScope::Global).get_bool("jpblob.lean"), false);
  EXPECT_EQ(ConfigReader::through(git).get_bool("jpblob.autoInstallHook"), true);
  // A key with no value is true to git, an empty one false: git converts.
  test::write_text(g.repo() / ".git" / "config",
                   test::read_text(g.repo() / ".git" / "config") + "[x]\n\tbare\n\tempty =\n");
  EXPECT_EQ(ConfigReader::through(git).get_bool("x.bare"), true);
  EXPECT_EQ(ConfigReader::through(git).get_bool("x.empty"), false);
  g.git("config x.bad maybe");
  EXPECT_NE(test::error_of([&] { ConfigReader::through(git).get_bool("x.bad"); }).find("x.bad"), std::string::npos);
}

TEST(ReadConfigText, ReadsAFileAsGitDoes) {
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
  EXPECT_EQ(read_config_text(text, "t"), (Pairs{{"jpblob.minsize", "2k"},
                                                {"jpblob.compressionlevel", "9"},
                                                {"section.Sub.Case.flag", "true"},
                                                {"section.Sub.Case.quoted", "a # not a comment tail"},
                                                {"section.Sub.Case.escaped", "x\ty\"z\\"},
                                                {"section.Sub.Case.joined", "onetwo"},
                                                {"include.path", "/etc/passwd"}}));
  EXPECT_TRUE(read_config_text("", "t").empty());
}

TEST(ReadConfigText, NeverFollowsAnIncludeNorMixesInOtherSettings) {
  GitSandbox g;
  test::write_text(g.repo() / "other", "[jpblob]\n\tcompressionLevel = 1\n");
  const std::string text = "[include]\n\tpath = " + (g.repo() / "other").string() +
                           "\n[includeIf \"gitdir:/\"]\n\tpath = " + (g.repo() / "other").string() +
                           "\n[jpblob]\n\tminSize = 1\n";
  g.git("config --global jpblob.fsync false");
  ScopedEnv p("GIT_CONFIG_PARAMETERS", "'jpblob.smudge'='refs'");
  ScopedEnv dir("GIT_DIR", (g.repo() / ".git").c_str());
  const auto entries = read_config_text(text, "t");
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].first, "include.path");
  EXPECT_EQ(entries[1].first, "includeif.gitdir:/.path");
  EXPECT_EQ(entries[2], (std::pair<std::string, std::string>{"jpblob.minsize", "1"}));
}

TEST(ReadConfigText, WhatGitRefusesNamesTheLine) {
  for (const char* text : {"[jpblob\nminSize=1\n", "[jpblob]\nminSize=\"open\n", "[jpblob]\n=1\n",
                           "[jpblob]\nminSize=a\\q\n", "\xff\xfe[jpblob]\n"}) {
    const std::string e = test::error_of([&] { read_config_text(text, ".jpblobconfig"); });
    EXPECT_TRUE(e.starts_with(".jpblobconfig, line ")) << text << ": " << e;
  }
  ScopedEnv lang("LANG", "de_DE.UTF-8");  // git's words are read in its own language
  EXPECT_TRUE(test::error_of([] { read_config_text("[a\n", "f"); }).starts_with("f, line 1: ")) << "LANG";
}

}  // namespace
}  // namespace jpblob
