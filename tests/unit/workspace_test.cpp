#include "core/workspace.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
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

TEST(Workspace, SettingsComeFromGitConfigAndTheEnvironment) {
  test::GitSandbox g;
  g.git("config jpblob.compressionLevel 9");
  g.git("config jpblob.fsync false");
  auto ws = Workspace::open(g.repo());
  EXPECT_EQ(ws.settings().store.compression_level, 9);
  EXPECT_FALSE(ws.settings().store.fsync);
  EXPECT_FALSE(ws.settings().smudge_refs_only);
  test::ScopedEnv skip("JPBLOB_SKIP_SMUDGE", "1");
  EXPECT_TRUE(Workspace::open(g.repo()).settings().smudge_refs_only);
  g.git("config jpblob.smudge sometimes");
  EXPECT_THROW(Workspace::open(g.repo()), Error);
}

TEST(Workspace, RefusesAStoreLinkedOutsideTheWorkTree) {
  test::GitSandbox g;
  test::TempDir outside;
  fs::create_directories(g.repo() / ".jp");
  fs::create_directory_symlink(outside.path(), g.repo() / ".jp/blobs");
  EXPECT_THROW(Workspace::open(g.repo()), Error);
}

}  // namespace
}  // namespace jpblob
