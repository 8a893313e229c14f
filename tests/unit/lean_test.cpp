// Lean work trees (core/lean/lean_tree): what clean asks of git's copies of blobs.
#include "core/lean/lean_tree.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>

#include "core/git/git_cli.hpp"
#include "core/store/blob_store.hpp"
#include "core/git/git_repo.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

// The clone's marking writes git's end of index entries (EOIE) where git
// itself would write one: asked of git for each value a user may have set.
TEST(RecordsEndOfEntries, AsGitDecides) {
  test::FormatRepo r("sha1");
  r.write("a", "a");
  r.git("add a");
  const GitCli git(r.dir.path());
  const std::filesystem::path index = r.dir / ".git/index";
  const auto git_writes_one = [&] {
    r.git("update-index --force-write-index");
    const std::string bytes = test::read_text(index);
    return bytes.substr(bytes.size() - 20 - 32, 4) == "EOIE";
  };
  struct Setting {
    const char* threads;     // nullptr: unset; "": no value
    const char* record;      // index.recordEndOfIndexEntries, or nullptr
  };
  for (const Setting& s : std::vector<Setting>{{nullptr, nullptr}, {"true", nullptr}, {"yes", nullptr},
                                               {"false", nullptr}, {"1", nullptr}, {"0", nullptr}, {"2", nullptr},
                                               {"", nullptr}, {"true", "false"}, {nullptr, "true"}, {"1", "true"}}) {
    r.git("config --unset-all index.threads; git config --unset-all index.recordEndOfIndexEntries; true");
    if (s.threads && *s.threads) r.git(std::string("config index.threads ") + s.threads);
    if (s.threads && !*s.threads) test::must("printf '[index]\\n\\tthreads\\n' >> .git/config", r.dir.path());
    if (s.record) r.git(std::string("config index.recordEndOfIndexEntries ") + s.record);
    const std::string which = std::string("index.threads=") + (s.threads ? s.threads : "(unset)") +
                              " index.recordEndOfIndexEntries=" + (s.record ? s.record : "(unset)");
    EXPECT_EQ(records_end_of_entries(git), git_writes_one()) << which;
  }
}

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
  EXPECT_EQ(asked.get(), GitCopy::Holds);
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
  EXPECT_EQ(held(digest, "staged content"), GitCopy::Holds);
  // Not marked: the content's own copy is written, and the hook stages it
  // over the planted one.
  EXPECT_EQ(held(planted, "what the name says"), GitCopy::None);
  EXPECT_EQ(held(Sha256::of("never staged"), "never staged"), GitCopy::None);
}

}  // namespace
}  // namespace jpblob
