// The lean room's kept copies and new blobs (core/lean/kept_copies,
// core/lean/new_blobs): a flat store in the git folder, each new blob of the
// work tree linked there, its lock, its retirement and its purge.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "core/base/error.hpp"
#include "core/git/git_repo.hpp"
#include "core/lean/kept_copies.hpp"
#include "core/lean/new_blobs.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

std::map<std::string, StoreEntry::Kind> walk(const BlobStore& store) {
  std::map<std::string, StoreEntry::Kind> out;
  store.for_each_entry([&](const StoreEntry& e) { out[e.relative] = e.kind; });
  return out;
}

// A work tree's store keeping copies in the kept folder of its git folder.
struct KeptSandbox {
  test::GitSandbox sandbox;
  fs::path t = sandbox.repo();
  GitRepo repo = *GitRepo::open(t);
  BlobStore store = BlobStore::for_work_tree(t);
  KeptCopies kept{repo, {}};
  NewBlobs blobs{store, &kept, {}};
  BlobPut put(std::string_view text) const { return blobs.put(Sha256::of(text), text); }
};

TEST(KeptCopies, EveryNewBlobIsLinkedIntoTheFlatStore) {
  KeptSandbox k;
  const BlobStore &kept = k.kept.store(), &store = k.store;
  const Digest one = k.put("one").digest;
  const auto many = k.blobs.put_all({"two", "three", "two"});
  const Digest two = many[0].digest, three = many[1].digest;
  EXPECT_EQ(kept.path_of(one), k.t / ".git/jpblob/kept" / (one.hex() + ".blob.gz"));
  EXPECT_TRUE(fs::exists(kept.path_of(one))) << "put() links at once";
  EXPECT_FALSE(fs::exists(kept.path_of(two))) << "put_all() leaves its links to finish()";
  k.blobs.finish();
  std::map<std::string, StoreEntry::Kind> expected;
  for (const Digest& d : {one, two, three}) {
    expected[d.hex() + ".blob.gz"] = StoreEntry::Kind::Blob;
    struct stat a {}, b {};
    ASSERT_EQ(::stat(store.path_of(d).c_str(), &a), 0);
    ASSERT_EQ(::stat(kept.path_of(d).c_str(), &b), 0);
    EXPECT_EQ(a.st_ino, b.st_ino) << "a kept copy is a link, not a second set of bytes";
    EXPECT_EQ(kept.get(d), d == one ? "one" : d == two ? "two" : "three");
  }
  test::write_text(k.t / ".git/jpblob/kept" / ".jpblob-tmp-1-2-abc", "partial");
  test::write_text(k.t / ".git/jpblob/kept" / "notes.txt", "not ours");
  expected[".jpblob-tmp-1-2-abc"] = StoreEntry::Kind::Temporary;
  expected["notes.txt"] = StoreEntry::Kind::Foreign;
  EXPECT_EQ(walk(kept), expected);
  EXPECT_EQ(kept.find_prefix(two.hex().substr(0, 5)), std::vector<Digest>{two});

  // A blob whose file went before finish() has nothing to keep.
  const Digest four = k.blobs.put_all({"four"})[0].digest;
  fs::remove(store.path_of(four));
  k.blobs.finish();
  EXPECT_FALSE(fs::exists(kept.path_of(four)));

  // The work-tree file gone (git's stash, git clean): the kept copy stays,
  // and a put() of the same blob writes the file again beside it.
  fs::remove(store.path_of(one));
  EXPECT_EQ(kept.get(one), "one");
  EXPECT_TRUE(k.put("one").written);
  EXPECT_TRUE(k.kept.drop(one));
  EXPECT_FALSE(fs::exists(kept.path_of(one)));
  EXPECT_TRUE(fs::is_directory(kept.root())) << "a flat store keeps its root";
  EXPECT_FALSE(k.kept.drop(one)) << "gone already";
}

TEST(KeptCopies, ALinkedKeptFolderIsRefusedBeforeAnythingIsWritten) {
  test::GitSandbox sandbox;
  test::TempDir outside;
  const fs::path t = sandbox.repo();
  fs::create_directories(t / ".git/jpblob");
  fs::create_directory_symlink(outside.path(), t / ".git/jpblob/kept");
  const GitRepo repo = *GitRepo::open(t);
  const KeptCopies kept(repo, {});
  EXPECT_THROW(kept.put(Sha256::of("x"), "x"), Error);
  EXPECT_THROW(kept.store().entries(), Error);
  EXPECT_TRUE(fs::is_empty(outside.path()));
}

TEST(KeptCopies, ACorruptKeptCopyIsRepairedWithTheWorkTreeFile) {
  KeptSandbox k;
  const Digest d = k.put("content").digest;
  // Corrupted in place: both names are one file.
  { std::ofstream(k.store.path_of(d), std::ios::app) << "junk"; }
  EXPECT_THROW(k.kept.store().get(d), Error);
  EXPECT_TRUE(k.blobs.replace_corrupt(d, "content"));
  EXPECT_EQ(k.store.get(d), "content");
  EXPECT_EQ(k.kept.store().get(d), "content");
}

// In a lean work tree (core/lean/lean_tree) the index's copy of a blob may
// be its only one: new blobs go to the kept copies, and what the index
// holds is not written at all.
TEST(NewBlobs, WhatTheIndexHoldsStandsForTheContentOnlyWhenItHoldsIt) {
  KeptSandbox k;
  std::map<std::string, GitCopy> git;  // content -> what git's copy is
  git["held"] = GitCopy::Holds;
  git["planted"] = GitCopy::Differs;
  const NewBlobs lean(k.store, &k.kept, [&](const Digest&, std::string_view content) {
    const auto it = git.find(std::string(content));
    return it == git.end() ? GitCopy::None : it->second;
  });
  EXPECT_EQ(&lean.home(), &k.kept.store());
  EXPECT_FALSE(lean.put(Sha256::of("held"), "held").written);
  EXPECT_FALSE(lean.put_all({"held"})[0].written);
  EXPECT_FALSE(fs::exists(k.kept.root())) << "nothing written";
  EXPECT_THROW(lean.put(Sha256::of("planted"), "planted"), CorruptBlobInTheWay);
  EXPECT_THROW(lean.put_all({"new", "planted"}), CorruptBlobInTheWay);
  EXPECT_FALSE(k.kept.store().contains(Sha256::of("planted")));
  const auto results = lean.put_all({"new", "held", "new"});
  EXPECT_TRUE(results[0].written);
  EXPECT_FALSE(results[1].written);
  EXPECT_FALSE(results[2].written) << "the first of equal payloads only";
  // Written once, into git's objects (core/lean/pending_packs), no kept file.
  EXPECT_EQ(k.kept.pending().fetch(Sha256::of("new"), std::nullopt), "new");
  lean.finish();
  EXPECT_TRUE(k.kept.pending().id_of(Sha256::of("new")).has_value()) << "finish() writes the pack";
  EXPECT_FALSE(k.kept.store().contains(Sha256::of("new")));
  EXPECT_FALSE(fs::exists(k.store.root())) << "no blob file in a lean work tree";
}

// A tree that becomes lean at its next commit, where git-jpblob's hook runs
// (Workspace::send_new_blobs_to_git_folder): clean's new blobs go to the
// kept copies only, while repair and `git jpblob store` still write the
// work tree, as in any tree that is not lean.
TEST(NewBlobs, ATreeBecomingLeanSendsCleansNewBlobsToTheGitFolderOnly) {
  KeptSandbox k;
  const NewBlobs adopting(k.store, &k.kept, [](const Digest&, std::string_view) { return GitCopy::None; }, false);
  EXPECT_EQ(&adopting.home(), &k.store);
  EXPECT_TRUE(adopting.put_all({"new"})[0].written);
  EXPECT_EQ(k.kept.pending().fetch(Sha256::of("new"), std::nullopt), "new") << "readable before finish()";
  EXPECT_FALSE(k.kept.store().contains(Sha256::of("new"))) << "written once, into git's objects";
  EXPECT_FALSE(fs::exists(k.store.root())) << "no blob file for the hook to delete again";
  EXPECT_TRUE(adopting.put(Sha256::of("repaired"), "repaired").written);
  EXPECT_EQ(k.store.get(Sha256::of("repaired")), "repaired");
  adopting.finish();
  EXPECT_EQ(k.kept.store().get(Sha256::of("repaired")), "repaired") << "linked into the kept copies";
  EXPECT_TRUE(k.kept.pending().id_of(Sha256::of("new")).has_value()) << "finish() writes the pack";
}

// A commit that staged every kept copy moves the folder aside whole: only
// when every entry is a copy that may go, and never while a writer holds
// the lock.
TEST(KeptCopies, SettingAsideMovesTheWholeFolderOnlyWhenEveryCopyMayGo) {
  KeptSandbox k;
  const KeptCopies& kept = k.kept;
  const Digest a = kept.put(Sha256::of("a"), "a").digest, b = kept.put(Sha256::of("b"), "b").digest;
  const fs::path retired = KeptCopies::retired_folder(k.t / ".git");
  const auto all = [](const Digest&) { return true; };
  EXPECT_FALSE(kept.set_aside([&](const Digest& d) { return d == a; }));
  // A leftover temporary file is no copy that may go.
  test::write_text(kept.root() / ".jpblob-tmp-1-2-x", "partial");
  EXPECT_FALSE(kept.set_aside(all));
  fs::remove(kept.root() / ".jpblob-tmp-1-2-x");
  {
    const Fd writer(::open((k.t / ".git/jpblob/kept.lock").c_str(), O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(writer.valid()) << "the puts made the lock file";
    ASSERT_EQ(::flock(writer.get(), LOCK_SH), 0);
    EXPECT_FALSE(kept.set_aside(all)) << "a writer holds the lock";
  }
  EXPECT_TRUE(kept.store().contains(a) && kept.store().contains(b)) << "nothing moved until now";
  EXPECT_FALSE(fs::exists(retired));
  EXPECT_TRUE(kept.set_aside(all));
  EXPECT_FALSE(fs::exists(kept.root()));
  std::vector<fs::path> moved;
  for (const auto& e : fs::directory_iterator(retired)) moved.push_back(e.path());
  ASSERT_EQ(moved.size(), 1u);
  EXPECT_TRUE(fs::exists(moved[0] / (a.hex() + ".blob.gz")) && fs::exists(moved[0] / (b.hex() + ".blob.gz")));
  // The next write makes the folder again.
  const Digest c = kept.put(Sha256::of("c"), "c").digest;
  EXPECT_EQ(kept.store().get(c), "c");
  EXPECT_FALSE(fs::exists(moved[0] / (c.hex() + ".blob.gz")));
  // A stash may need a copy the index holds: nothing is retired then.
  k.sandbox.git("commit -q --allow-empty -m one");
  test::write_text(k.t / "f", "x");
  k.sandbox.git("stash -q -u");
  EXPECT_FALSE(kept.may_go());
  EXPECT_FALSE(kept.retire({c}));
  EXPECT_TRUE(kept.store().contains(c));
}

// Writers racing retirements: a file published while the folder moves
// must not go with it unseen (it would be deleted with copies that are
// all staged). Every file in a moved folder is one `may_go` was asked of.
TEST(KeptCopies, NoWriteRacingARetirementGoesWithTheFolderUnseen) {
  KeptSandbox k;
  const KeptCopies& kept = k.kept;
  std::atomic<bool> stop = false;
  std::thread writer([&] {
    // Large enough that compressing takes a while between opening the
    // folder and publishing the file.
    std::string text(256 * 1024, 'x');
    for (std::size_t i = 0; !stop; ++i) {
      for (std::size_t j = 0; j < text.size(); j += 4096) text[j] = static_cast<char>('a' + (i + j) % 26);
      text.replace(0, 20, std::to_string(i) + "                    ");
      kept.put(Sha256::of(text), text);
      std::this_thread::sleep_for(std::chrono::microseconds(200));  // the lock free now and then
    }
  });
  std::size_t moved = 0;
  const fs::path retired = KeptCopies::retired_folder(k.t / ".git");
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (moved < 100 && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    std::set<std::string> asked;
    if (!kept.set_aside([&](const Digest& d) {
          asked.insert(d.hex() + ".blob.gz");
          return true;
        }))
      continue;
    ++moved;
    for (const auto& dir : fs::directory_iterator(retired)) {
      for (const auto& e : fs::directory_iterator(dir.path()))
        EXPECT_TRUE(asked.count(e.path().filename().string())) << e.path() << " went with the folder unseen";
      fs::remove_all(dir.path());
    }
  }
  stop = true;
  writer.join();
  EXPECT_GT(moved, 0u) << "no retirement happened: the test proves nothing";
}

TEST(KeptCopies, PurgingDeletesTheRetiredCopiesAndNothingElse) {
  KeptSandbox k;
  const fs::path git = k.t / ".git", retired = KeptCopies::retired_folder(git);
  k.kept.put(Sha256::of("one"), "one");
  k.kept.put(Sha256::of("two"), "two");
  ASSERT_TRUE(k.kept.set_aside([](const Digest&) { return true; }));
  // Not ours: a stray file in another folder, and a link to one outside.
  test::TempDir outside;
  const Digest three = Sha256::of("three");
  test::write_text(outside / (three.hex() + ".blob.gz"), "outside");
  fs::create_directories(retired / "kept-x2");
  test::write_text(retired / "kept-x2" / "notes.txt", "a user's");
  fs::create_directory_symlink(outside.path(), retired / "kept-x3");
  EXPECT_EQ(KeptCopies::purge_retired(git), 2u);
  EXPECT_EQ(test::read_text(retired / "kept-x2" / "notes.txt"), "a user's");
  EXPECT_EQ(test::read_text(outside / (three.hex() + ".blob.gz")), "outside");
  std::size_t left = 0;
  for (const auto& e : fs::directory_iterator(retired)) left += e.path().filename().string().starts_with("kept-x") ? 0 : 1;
  EXPECT_EQ(left, 0u) << "the set-aside folder went";
  EXPECT_EQ(KeptCopies::purge_retired(git), 0u) << "nothing left, twice is harmless";
  EXPECT_EQ(KeptCopies::purge_retired(k.t / "no-such-folder"), 0u);
}

}  // namespace
}  // namespace jpblob
