// Lean work trees (core/workspace/lean): what clean asks of git's copies of blobs.
#include "core/workspace/lean.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>

#include "core/store/blob_store.hpp"
#include "core/git/git_repo.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

// Clean asks while smudges delayed on other threads read the same
// repository through the blob lookup, which holds GitRepo::lock(): the
// question waits for that lock too, since libgit2 serves one thread at a
// time and both read the repository's one index.
TEST(HeldInIndex, TakesTheRepositorysLock) {
  test::GitSandbox g;
  const Digest digest = BlobStore::for_work_tree(g.repo()).put("held content").digest;
  g.git("add .jp/blobs");
  g.git("update-index --skip-worktree " + tracked_blob_path(digest));
  auto repo = GitRepo::open(g.repo());
  ASSERT_TRUE(repo);
  const auto held = held_in_index(*repo);
  auto lock = repo->lock();
  auto asked = std::async(std::launch::async, [&] { return held(digest, "held content"); });
  EXPECT_EQ(asked.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout)
      << "answered while another thread held the repository";
  lock.unlock();
  EXPECT_EQ(asked.get(), BlobStore::GitCopy::Holds);
}

}  // namespace
}  // namespace jpblob
