// `.jpblobconfig` (core/workspace/shared_config): read by git as a config file
// (core/git/config_reader, whose tests cover the syntax), without following
// anything, deciding the settings that change committed bytes.
#include "core/workspace/shared_config.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "core/base/error.hpp"
#include "core/workspace/workspace.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

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

// git reads the file, never following an include: a committed file must
// not pull settings from elsewhere on a teammate's disk.
TEST(SharedConfig, AnIncludeIsNeverFollowed) {
  test::GitSandbox g;
  g.git("config jpblob.minSize 7");
  test::TempDir outside;
  std::ofstream(outside / "cfg") << "[jpblob]\nminSize=5\ncompressionLevel=1\n";
  std::ofstream(g.repo() / ".jpblobconfig") << "[include]\npath = " << (outside / "cfg").string()
                                            << "\n[includeIf \"gitdir:/\"]\npath = " << (outside / "cfg").string()
                                            << "\n[jpblob]\ncompressionLevel=9\n";
  const SafeDir top = SafeDir::open(g.repo());
  const SharedConfig c = read_shared_config(top);
  EXPECT_EQ(c.values, (std::vector<std::pair<std::string, std::string>>{{"jpblob.compressionlevel", "9"}}));
  EXPECT_TRUE(c.warnings.empty());
  auto repo = GitRepo::open(g.repo());
  EXPECT_EQ(load_settings(&*repo, &top).min_size, 7u);
}

TEST(SharedConfig, ALinkIsIgnoredWithAWarning) {
  test::GitSandbox g;
  test::TempDir outside;
  std::ofstream(outside / "cfg") << "[jpblob]\nminSize=5\n";
  std::filesystem::create_symlink(outside / "cfg", g.repo() / ".jpblobconfig");
  const SafeDir top = SafeDir::open(g.repo());
  const SharedConfig c = read_shared_config(top);
  EXPECT_TRUE(c.values.empty());
  ASSERT_EQ(c.warnings.size(), 1u);
  EXPECT_NE(c.warnings[0].find(".jpblobconfig"), std::string::npos) << c.warnings[0];
}

// A committed .jpblobconfig is someone else's: whatever it holds, the
// settings load, each bad part ignored with one warning naming the file and
// the key (or line), the personal value in its place.
TEST(SharedConfig, ABadFileOrValueFallsBackToThePersonalValue) {
  test::GitSandbox g;
  g.git("config jpblob.minSize 7");
  g.git("config jpblob.compressionLevel 2");
  auto repo = GitRepo::open(g.repo());
  const SafeDir top = SafeDir::open(g.repo());
  const auto write = [&](const std::string& text) { std::ofstream(g.repo() / ".jpblobconfig") << text; };
  struct Case {
    std::string text;
    std::string named;  // what the one warning names beside the file
    std::uint64_t min_size;
    int level;
  };
  for (const Case& c : std::vector<Case>{
           {"[jpblob]\n  compressionLevel = 10\n  minSize = 1k\n", "jpblob.compressionLevel", 1024, 2},
           {"[jpblob]\n  minSize\n  compressionLevel = 9\n", "jpblob.minSize", 7, 9},
           {"[jpblob]\n  minSize = lots\n", "jpblob.minSize", 7, 2},
           {"[jpblob]\n  minSize = 1k\n  compressionLevel\n", "jpblob.compressionLevel", 1024, 2},
           {"[jpblob\n  minSize = 1k\n", "line 1", 7, 2},
           {std::string(2 << 20, '#'), "larger than", 7, 2},
       }) {
    write(c.text);
    Settings s;
    ASSERT_NO_THROW(s = load_settings(&*repo, &top)) << c.text.substr(0, 60);
    EXPECT_EQ(s.min_size, c.min_size) << c.text.substr(0, 60);
    EXPECT_EQ(s.store.compression_level, c.level) << c.text.substr(0, 60);
    ASSERT_EQ(s.warnings.size(), 1u) << c.text.substr(0, 60);
    EXPECT_NE(s.warnings[0].find(".jpblobconfig"), std::string::npos) << s.warnings[0];
    EXPECT_NE(s.warnings[0].find(c.named), std::string::npos) << s.warnings[0];
  }
  std::filesystem::remove(g.repo() / ".jpblobconfig");
  std::filesystem::create_directory(g.repo() / ".jpblobconfig");
  const Settings s = load_settings(&*repo, &top);
  EXPECT_EQ(s.min_size, 7u);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_NE(s.warnings[0].find("not a regular file"), std::string::npos) << s.warnings[0];
}

// Smudge and textconv open their workspace without reading it.
TEST(SharedConfig, ReadOnlyWhenAsked) {
  test::GitSandbox g;
  g.git("config jpblob.minSize 7");
  std::ofstream(g.repo() / ".jpblobconfig") << "[jpblob]\n  minSize = 1k\n  compressionLevel = 10\n";
  Workspace later = Workspace::open(g.repo(), std::nullopt, SharedSettings::Later);
  EXPECT_EQ(later.settings().min_size, 7u);
  EXPECT_TRUE(later.settings().warnings.empty());
  const auto warnings = later.read_shared_settings();
  EXPECT_EQ(later.settings().min_size, 1024u);
  EXPECT_EQ(warnings.size(), 1u);
  EXPECT_TRUE(later.read_shared_settings().empty());  // once
  EXPECT_EQ(Workspace::open(g.repo()).settings().warnings.size(), 1u);
}

}  // namespace
}  // namespace jpblob
