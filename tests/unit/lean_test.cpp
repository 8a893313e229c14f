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

// make_lean() marks a clone's blob entries skip-worktree with one index
// write, which re-cleans every conversation the checkout wrote in the
// index's second (git's racily clean entries), with the work tree already
// lean. An entry not marked yet holds its blob as well as a marked one:
// clean must not write a copy of each to the kept folder, only for the
// hook to delete them again (it made a 1,000-conversation clone's hook
// 5 s slower). A planted entry still stands for nothing, even when the
// bytes under it are another name's sound blob.
TEST(HeldInIndex, AnEntryNotMarkedYetHoldsItsBlob) {
  test::GitSandbox g;
  const BlobStore store = BlobStore::for_work_tree(g.repo());
  const Digest digest = store.put("staged content").digest;
  const Digest planted = Sha256::of("what the name says");
  std::filesystem::create_directories(store.path_of(planted).parent_path());
  test::write_text(store.path_of(planted), read_file(store.path_of(digest)));
  g.git("add .jp/blobs");
  auto repo = GitRepo::open(g.repo());
  ASSERT_TRUE(repo);
  const auto held = held_in_index(*repo);
  EXPECT_EQ(held(digest, "staged content"), BlobStore::GitCopy::Holds);
  // Not marked: the content's own copy is written, and the hook stages it
  // over the planted one.
  EXPECT_EQ(held(planted, "what the name says"), BlobStore::GitCopy::None);
  EXPECT_EQ(held(Sha256::of("never staged"), "never staged"), BlobStore::GitCopy::None);
}

}  // namespace
}  // namespace jpblob
