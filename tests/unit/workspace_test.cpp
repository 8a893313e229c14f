#include "core/workspace/workspace.hpp"

#include <gtest/gtest.h>

#include <functional>

#include "core/format/digest.hpp"
#include "core/base/error.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

TEST(Workspace, StoreIsTheWorkTreesFromAnySubfolder) {
  test::GitSandbox g;
  fs::create_directories(g.repo() / ".jp/conversations/1-x");
  auto ws = Workspace::open(g.repo() / ".jp/conversations/1-x");
  EXPECT_EQ(ws.top(), g.repo());
  EXPECT_EQ(ws.store().root(), g.repo() / ".jp/blobs");
  EXPECT_NE(ws.repo(), nullptr);
}

TEST(Workspace, ExplicitStoreFolder) {
  test::GitSandbox g;
  test::TempDir local;
  auto ws = Workspace::open(g.repo(), local.path());
  EXPECT_EQ(ws.store().root(), local / "blobs");
}

TEST(Workspace, OutsideARepositoryTheCurrentFolderHoldsTheStore) {
  test::TempDir t;
  test::ScopedEnv ceiling("GIT_CEILING_DIRECTORIES", t.path().parent_path().c_str());
  auto ws = Workspace::open(t.path());
  EXPECT_EQ(ws.repo(), nullptr);
  EXPECT_EQ(ws.store().root(), t / ".jp/blobs");
}

TEST(Workspace, OutsideARepositoryNothingIsWrittenToTheCurrentFoldersStore) {
  test::TempDir t;
  test::ScopedEnv ceiling("GIT_CEILING_DIRECTORIES", t.path().parent_path().c_str());
  const auto ws = Workspace::open(t.path());
  for (const auto& write : std::vector<std::function<void()>>{
           [&] { ws.store().put("payload"); },
           [&] { ws.store().put_all({"payload"}); },
           [&] { ws.store().replace_corrupt(Sha256::of("payload"), "payload"); }}) {
    const std::string msg = test::error_of(write);
    EXPECT_NE(msg.find("not in a git repository; pass --store <folder>"), std::string::npos) << msg;
  }
  EXPECT_FALSE(fs::exists(t / ".jp"));
  // --store names where blobs go: that works anywhere.
  fs::create_directory(t / "local");
  const auto with_store = Workspace::open(t.path(), t / "local");
  EXPECT_TRUE(with_store.store().put("payload").written);
}

TEST(Workspace, SettingsComeFromGitConfigAndTheEnvironment) {
  test::GitSandbox g;
  g.git("config jpblob.compressionLevel 9");
  g.git("config jpblob.fsync false");
  auto ws = Workspace::open(g.repo());
  EXPECT_EQ(ws.settings().store.compression_level, 9);
  EXPECT_FALSE(ws.settings().store.fsync);
  EXPECT_FALSE(ws.settings().smudge_refs_only);
  EXPECT_FALSE(ws.settings().skip_smudge_errors);
  g.git("config jpblob.skipSmudgeErrors yes");
  EXPECT_TRUE(Workspace::open(g.repo()).settings().skip_smudge_errors);
  g.git("config --unset jpblob.skipSmudgeErrors");
  {
    test::ScopedEnv skip_errors("JPBLOB_SKIP_SMUDGE_ERRORS", "1");
    EXPECT_TRUE(Workspace::open(g.repo()).settings().skip_smudge_errors);
  }
  test::ScopedEnv skip("JPBLOB_SKIP_SMUDGE", "1");
  EXPECT_TRUE(Workspace::open(g.repo()).settings().smudge_refs_only);
  g.git("config jpblob.smudge sometimes");
  EXPECT_THROW(Workspace::open(g.repo()), Error);
}

// Booleans and sizes in every spelling git accepts, read by libgit2's own
// parsers, from config files and from `git -c`.
TEST(Workspace, SettingsTakeGitsSpellings) {
  test::GitSandbox g;
  for (const auto& [value, want] : std::vector<std::pair<std::string, bool>>{
           {"True", true}, {"YES", true}, {"on", true}, {"1", true}, {"off", false}, {"False", false}, {"0", false}}) {
    g.git("config jpblob.fsync " + value);
    EXPECT_EQ(Workspace::open(g.repo()).settings().store.fsync, want) << value;
  }
  for (const auto& [value, want] : std::vector<std::pair<std::string, std::uint64_t>>{
           {"0", 0}, {"100", 100}, {"1k", 1024}, {"1M", 1u << 20}, {"1g", std::uint64_t{1} << 30}}) {
    g.git("config jpblob.minSize " + value);
    EXPECT_EQ(Workspace::open(g.repo()).settings().min_size, want) << value;
  }
  g.git("config jpblob.minSize 10");
  {
    test::ScopedEnv params("GIT_CONFIG_PARAMETERS", "'jpblob.minsize=2k' 'jpblob.fsync=NO'");
    const auto ws = Workspace::open(g.repo());
    EXPECT_EQ(ws.settings().min_size, 2048u);
    EXPECT_FALSE(ws.settings().store.fsync);
  }
  for (const char* bad : {"-1", "lots", "1x", "1kk"}) {
    g.git(std::string("config jpblob.minSize ") + test::shell_quote(bad));
    EXPECT_NE(test::error_of([&] { Workspace::open(g.repo()); }).find("jpblob.minSize: '" + std::string(bad) + "' is not a size"),
              std::string::npos) << bad;
  }
  g.git("config jpblob.minSize 0");
  g.git("config jpblob.fsync maybe");
  EXPECT_NE(test::error_of([&] { Workspace::open(g.repo()); }).find("jpblob.fsync: 'maybe' is not a boolean"),
            std::string::npos);
}

// Refused at the store's first use: opening the workspace (what a commit
// of other files does) is not stopped by a link a teammate committed.
TEST(Workspace, RefusesAStoreLinkedOutsideTheWorkTreeAtItsFirstUse) {
  test::GitSandbox g;
  test::TempDir outside;
  fs::create_directories(g.repo() / ".jp");
  fs::create_directory_symlink(outside.path(), g.repo() / ".jp/blobs");
  const Workspace ws = Workspace::open(g.repo());
  EXPECT_THROW(ws.store().entries(), Error);
  EXPECT_THROW(ws.store().put("x"), Error);
  EXPECT_TRUE(fs::is_empty(outside.path()));
}

}  // namespace
}  // namespace jpblob
