// The sealed store's listing, deletion, verification and lookups.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "core/store/blob_store.hpp"
#include "core/base/error.hpp"
#include "core/format/gzip.hpp"
#include "core/workspace/kept.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

// A cutoff no file written so far is newer than. Not time(2) itself: a
// file's timestamp comes from a finer clock than time(2)'s (Linux 6.13's
// multigrain timestamps), and just past a second's turn it can read the
// next second while time(2) still gives the last (StoreRemove failed so
// once in CI, the flat store's blob kept as Fresh).
std::time_t past_every_write() { return ::time(nullptr) + 1; }

std::map<std::string, StoreEntry::Kind> walk(const BlobStore& store) {
  std::map<std::string, StoreEntry::Kind> out;
  store.for_each_entry([&](const StoreEntry& e) { out[e.relative] = e.kind; });
  return out;
}

TEST(StorePaths, TrackedPathsRoundTripAndRejectLookalikes) {
  const Digest d = Sha256::of("x");
  const std::string hex = d.hex();
  const std::string path = tracked_blob_path(d);
  EXPECT_EQ(path, ".jp/blobs/" + hex.substr(0, 2) + "/" + hex.substr(2, 2) + "/" + hex + ".blob.gz");
  EXPECT_EQ(digest_of_tracked_path(path), d);
  EXPECT_TRUE(is_store_path(path));
  EXPECT_TRUE(is_store_path(".jp/blobs/anything"));
  EXPECT_FALSE(is_store_path(".jp/blobsx/a"));
  EXPECT_FALSE(is_store_path(".jp/blobs"));
  std::string upper = hex;
  for (char& c : upper) c = static_cast<char>(std::toupper(c));
  for (const std::string& bad :
       {".jp/blobs/00/00/" + hex + ".blob.gz",                                     // wrong folders
        ".jp/blobs/" + upper.substr(0, 2) + "/" + upper.substr(2, 2) + "/" + upper + ".blob.gz",  // uppercase
        path + ".tmp", ".jp/blobs/../blobs/" + hex.substr(0, 2) + "/" + hex.substr(2, 2) + "/" + hex + ".blob.gz",
        "x" + path})
    EXPECT_EQ(digest_of_tracked_path(bad), std::nullopt) << bad;
}

TEST(StoreWalk, ClassifiesEveryEntryAndFollowsNoLink) {
  test::TempDir t;
  const BlobStore store = BlobStore::for_work_tree(t.path());
  EXPECT_TRUE(walk(store).empty()) << "a missing store walks nothing";
  const Digest d = store.put("content").digest;
  const std::string leaf = blob_relative_path(d).substr(0, 5);
  test::write_text(store.root() / leaf / ".jpblob-tmp-1-2-abc", "partial");
  test::write_text(store.root() / leaf / "notes.txt", "not ours");
  const std::string misplaced = Sha256::of("y").hex() + ".blob.gz";
  test::write_text(store.root() / leaf / misplaced, "wrong folder");
  test::write_text(store.root() / "README", "top-level file");
  test::write_text(store.root() / "AB/cd/x", "uppercase folder");
  test::TempDir outside;
  test::write_text(outside / "00/00.blob.gz", "outside");
  fs::create_directory_symlink(outside.path(), store.root() / "ff");
  fs::create_symlink(outside / "00/00.blob.gz", store.root() / leaf / "link.blob.gz");
  const auto entries = walk(store);
  using K = StoreEntry::Kind;
  EXPECT_EQ(entries, (std::map<std::string, K>{{blob_relative_path(d), K::Blob},
                                               {leaf + "/.jpblob-tmp-1-2-abc", K::Temporary},
                                               {leaf + "/notes.txt", K::Foreign},
                                               {leaf + "/" + misplaced, K::Foreign},
                                               {leaf + "/link.blob.gz", K::Foreign},
                                               {"README", K::Foreign},
                                               {"AB", K::Foreign},
                                               {"ff", K::Foreign}}));
  for (const auto& e : store.entries())
    EXPECT_EQ(e.symlink, e.relative == "ff" || e.relative == leaf + "/link.blob.gz") << e.relative;
}

TEST(StoreRemove, DeletesRemovesEmptiedFoldersAndKeepsTheRest) {
  test::TempDir t;
  const BlobStore store = BlobStore::for_work_tree(t.path());
  const Digest a = store.put("a").digest;
  const Digest b = store.put("b").digest;
  const auto find = [&](const Digest& d) {
    for (const auto& e : store.entries())
      if (e.digest == d) return e;
    throw Error("not listed");
  };
  const StoreEntry ea = find(a);
  // Used again after the listing: kept.
  EXPECT_EQ(store.remove(ea, ea.mtime - 1), Removal::Fresh);
  EXPECT_TRUE(store.contains(a));
  EXPECT_EQ(store.remove(ea, past_every_write()), Removal::Removed);
  EXPECT_FALSE(store.contains(a));
  EXPECT_FALSE(fs::exists(store.root() / blob_relative_path(a).substr(0, 5))) << "the emptied leaf stays";
  EXPECT_FALSE(fs::exists(store.root() / blob_relative_path(a).substr(0, 2))) << "the emptied aa folder stays";
  EXPECT_EQ(store.remove(ea, past_every_write()), Removal::Gone);
  // A folder that holds something else stays.
  const StoreEntry eb = find(b);
  test::write_text(store.root() / blob_relative_path(b).substr(0, 5) / "notes.txt", "keep me");
  EXPECT_EQ(store.remove(eb, past_every_write()), Removal::Removed);
  EXPECT_TRUE(fs::exists(store.root() / blob_relative_path(b).substr(0, 5) / "notes.txt"));
  // Foreign entries are not ours to delete.
  for (const auto& e : store.entries()) {
    EXPECT_EQ(e.kind, StoreEntry::Kind::Foreign);
    EXPECT_NE(test::error_of([&] { store.remove(e, past_every_write()); }), "");
  }
}

// remove_all(): remove() of many, each folder emptied removed once; the
// cutoff asked per entry, results in the entries' order.
TEST(StoreRemove, AllAtOnceKeepsWhatRemoveKeeps) {
  test::TempDir t, flat_root;
  const BlobStore store = BlobStore::for_work_tree(t.path());
  std::vector<Digest> digests;
  for (int i = 0; i < 300; ++i) digests.push_back(store.put("blob " + std::to_string(i)).digest);
  const Digest a = digests[0], keep = digests[1], fresh = digests[2], noted = digests[3];
  test::write_text(store.root() / blob_relative_path(noted).substr(0, 5) / "notes.txt", "keep me");
  std::vector<StoreEntry> listed = store.entries();
  std::vector<const StoreEntry*> doomed;
  for (const StoreEntry& e : listed)
    if (e.digest && *e.digest != keep) doomed.push_back(&e);
  std::vector<std::size_t> asked;
  std::mutex m;
  const auto removals = store.remove_all(
      doomed,
      [&](std::size_t i) {
        std::lock_guard lock(m);
        asked.push_back(i);
        return *doomed[i]->digest == fresh ? doomed[i]->mtime - 1 : past_every_write();
      },
      8);
  ASSERT_EQ(removals.size(), doomed.size());
  EXPECT_EQ(asked.size(), doomed.size()) << "each entry's cutoff is asked once";
  for (std::size_t i = 0; i < doomed.size(); ++i) {
    const Digest& d = *doomed[i]->digest;
    EXPECT_EQ(removals[i], d == fresh ? Removal::Fresh : Removal::Removed) << d.hex();
    EXPECT_EQ(store.contains(d), d == fresh) << d.hex();
  }
  EXPECT_TRUE(store.contains(keep));
  EXPECT_FALSE(fs::exists(store.root() / blob_relative_path(a).substr(0, 5))) << "an emptied leaf stays";
  for (const Digest& d : {keep, fresh}) {
    EXPECT_TRUE(fs::exists(store.root() / blob_relative_path(d).substr(0, 5)));
    EXPECT_TRUE(fs::exists(store.root() / blob_relative_path(d).substr(0, 2)));
  }
  EXPECT_TRUE(fs::exists(store.root() / blob_relative_path(noted).substr(0, 5) / "notes.txt"));
  // Every `aa` folder left holds something.
  for (const auto& level1 : fs::directory_iterator(store.root())) EXPECT_FALSE(fs::is_empty(level1.path()));
  // Again: the removed ones are Gone.
  const auto again = store.remove_all(
      doomed, [&](std::size_t i) { return *doomed[i]->digest == fresh ? doomed[i]->mtime - 1 : past_every_write(); }, 8);
  for (std::size_t i = 0; i < doomed.size(); ++i)
    EXPECT_EQ(again[i], *doomed[i]->digest == fresh ? Removal::Fresh : Removal::Gone);
  // A flat store (the kept copies) keeps its root.
  const BlobStore flat = BlobStore::kept_copies(flat_root.path(), {});
  const Digest f = flat.put("flat").digest;
  const StoreEntry ef = flat.entry_for(f);
  EXPECT_EQ(flat.remove_all({&ef}, [](std::size_t) { return past_every_write(); }, 8),
            std::vector<Removal>{Removal::Removed});
  EXPECT_FALSE(flat.contains(f));
  EXPECT_TRUE(fs::is_directory(flat.root()));
  // A foreign entry among them is refused.
  test::write_text(store.root() / "stray", "not a blob");
  for (const StoreEntry& e : store.entries()) {
    if (e.kind != StoreEntry::Kind::Foreign) continue;
    EXPECT_NE(test::error_of([&] { store.remove_all({&e}, [](std::size_t) { return past_every_write(); }, 8); }), "");
  }
  EXPECT_TRUE(fs::exists(store.root() / "stray"));
}

TEST(StoreRemove, NeverFollowsALinkedFolder) {
  test::TempDir t, outside;
  const BlobStore store = BlobStore::for_work_tree(t.path());
  const Digest d = store.put("linked").digest;
  StoreEntry e = store.entries().front();
  // The leaf is replaced by a link to a folder holding a file of that name.
  const fs::path leaf = store.root() / blob_relative_path(d).substr(0, 5);
  fs::remove_all(leaf);
  test::write_text(outside / (d.hex() + ".blob.gz"), "outside");
  fs::create_directory_symlink(outside.path(), leaf);
  EXPECT_NE(test::error_of([&] { store.remove(e, past_every_write()); }), "");
  EXPECT_EQ(test::read_text(outside / (d.hex() + ".blob.gz")), "outside");
}

TEST(StorePut, RecreatesAFolderAGcRemovedMeanwhile) {
  test::TempDir t;
  const BlobStore store = BlobStore::for_work_tree(t.path());
  store.put("neighbour");  // the root exists
  // The first temporary file creation finds its leaf removed (as a gc
  // emptying it would): the put must open the folder again and succeed.
  static int calls;
  static std::string removed_leaf;
  calls = 0;
  const Digest d = Sha256::of("raced");
  removed_leaf = (store.root() / blob_relative_path(d).substr(0, 5)).string();
  Syscalls s = syscalls();
  s.openat = [](int dir, const char* path, int flags, mode_t mode) -> int {
    if ((flags & O_CREAT) && ++calls == 1) {
      fs::remove_all(removed_leaf);
      errno = ENOENT;
      return -1;
    }
    return ::openat(dir, path, flags, mode);
  };
  {
    ScopedSyscalls swap(s);
    EXPECT_TRUE(store.put("raced").written);
  }
  EXPECT_EQ(store.get(d), "raced");
  EXPECT_GE(calls, 2);
}

TEST(StoreVerify, SizesCorruptionAndPrefixes) {
  test::TempDir t;
  const BlobStore store = BlobStore::for_work_tree(t.path());
  const Digest d = store.put("twelve bytes").digest;
  EXPECT_EQ(store.verify(d), 12u);
  EXPECT_EQ(store.verify(d, 12u), 12u);
  EXPECT_NE(test::error_of([&] { store.verify(d, 13u); }).find("is corrupt"), std::string::npos);
  EXPECT_EQ(store.verify(Sha256::of("absent")), std::nullopt);
  for (const auto& e : store.entries()) EXPECT_EQ(store.trailer_size(e), 12u);
  // A flipped byte is named with the path the user sees.
  const fs::path file = store.path_of(d);
  std::string raw = test::read_text(file);
  raw[raw.size() / 2] ^= 1;
  fs::permissions(file, fs::perms::owner_write, fs::perm_options::add);
  test::write_text(file, raw);
  EXPECT_NE(test::error_of([&] { store.verify(d); }).find("blob " + tracked_blob_path(d) + " is corrupt"),
            std::string::npos);

  const std::string hex = d.hex();
  EXPECT_EQ(store.find_prefix(hex.substr(0, 8)), std::vector<Digest>{d});
  EXPECT_EQ(store.find_prefix(hex.substr(0, 3)), std::vector<Digest>{d});
  EXPECT_EQ(store.find_prefix(hex.substr(0, 1)), std::vector<Digest>{d});
  EXPECT_EQ(store.find_prefix(hex), std::vector<Digest>{d});
  EXPECT_TRUE(store.find_prefix(hex.substr(0, 6) == "000000" ? "111111" : "000000").empty());
  for (const char* bad : {"", "XYZ", "0g", "../x"}) EXPECT_THROW(store.find_prefix(bad), Error) << bad;
  // Two blobs sharing a prefix are both found.
  std::optional<Digest> twin;
  for (int i = 0; !twin; ++i) {
    const std::string s = "twin " + std::to_string(i);
    if (Sha256::of(s).hex()[0] == hex[0]) twin = store.put(s).digest;
  }
  EXPECT_EQ(store.find_prefix(hex.substr(0, 1)).size(), 2u);
}

// A work tree's store keeping copies in a flat store of its git folder.
struct KeptSandbox {
  test::TempDir t;
  BlobStore kept, store;
  KeptSandbox()
      : kept((fs::create_directory(t / ".git"), BlobStore::kept_copies(t / ".git"))),
        store(BlobStore::for_work_tree(t.path())) {
    store.keep_copies_in(&kept);
  }
};

// Kept copies (core/workspace/kept): a flat store in the git folder, each new blob of
// the work tree's linked there, never a second set of bytes.
TEST(KeptCopies, EveryNewBlobIsLinkedIntoTheFlatStore) {
  KeptSandbox k;
  const test::TempDir& t = k.t;
  const BlobStore &kept = k.kept, &store = k.store;
  const Digest one = store.put("one").digest;
  const auto many = store.put_all({"two", "three", "two"});
  const Digest two = many[0].digest, three = many[1].digest;
  EXPECT_EQ(kept.path_of(one), t / ".git/jpblob/kept" / (one.hex() + ".blob.gz"));
  EXPECT_TRUE(fs::exists(kept.path_of(one))) << "put() links at once";
  EXPECT_FALSE(fs::exists(kept.path_of(two))) << "put_all() leaves its links to keep_pending()";
  store.keep_pending();
  std::map<std::string, StoreEntry::Kind> expected;
  for (const Digest& d : {one, two, three}) {
    expected[d.hex() + ".blob.gz"] = StoreEntry::Kind::Blob;
    struct stat a {}, b {};
    ASSERT_EQ(::stat(store.path_of(d).c_str(), &a), 0);
    ASSERT_EQ(::stat(kept.path_of(d).c_str(), &b), 0);
    EXPECT_EQ(a.st_ino, b.st_ino) << "a kept copy is a link, not a second set of bytes";
    EXPECT_EQ(kept.get(d), d == one ? "one" : d == two ? "two" : "three");
  }
  test::write_text(t / ".git/jpblob/kept" / ".jpblob-tmp-1-2-abc", "partial");
  test::write_text(t / ".git/jpblob/kept" / "notes.txt", "not ours");
  expected[".jpblob-tmp-1-2-abc"] = StoreEntry::Kind::Temporary;
  expected["notes.txt"] = StoreEntry::Kind::Foreign;
  EXPECT_EQ(walk(kept), expected);
  EXPECT_EQ(kept.find_prefix(two.hex().substr(0, 5)), std::vector<Digest>{two});

  // A blob whose file went before keep_pending() has nothing to keep.
  const Digest four = store.put_all({"four"})[0].digest;
  fs::remove(store.path_of(four));
  store.keep_pending();
  EXPECT_FALSE(fs::exists(kept.path_of(four)));

  // The work-tree file gone (git's stash, git clean): the kept copy stays,
  // and a put() of the same blob writes the file again beside it.
  fs::remove(store.path_of(one));
  EXPECT_EQ(kept.get(one), "one");
  EXPECT_TRUE(store.put("one").written);
  EXPECT_EQ(kept.remove(kept.entry_for(one), std::numeric_limits<std::time_t>::max()), Removal::Removed);
  EXPECT_FALSE(fs::exists(kept.path_of(one)));
  EXPECT_TRUE(fs::is_directory(kept.root())) << "a flat store keeps its root";
  EXPECT_EQ(kept.remove(kept.entry_for(one), std::numeric_limits<std::time_t>::max()), Removal::Gone);
}

// gc lists kept copies by name (100,000 stats cost 0.3 s) and stats only
// the few it may delete.
TEST(StoreWalk, ListingByNameAgreesWithTheWalkInBothLayouts) {
  test::TempDir t;
  fs::create_directory(t / ".git");
  const BlobStore kept = BlobStore::kept_copies(t / ".git");
  const BlobStore store = BlobStore::for_work_tree(t.path());
  const test::TempDir outside;
  for (const BlobStore* s : {&store, &kept}) {
    s->put("a");
    const Digest b = s->put("bb").digest;
    test::write_text(s->path_of(b).parent_path() / ".jpblob-tmp-1-2-abc", "partial");
    test::write_text(s->root() / "README", "not ours");
    if (s == &store) {
      // Folder levels by name open each hex folder without a stat: what is
      // not a folder, or is a link to one, is Foreign all the same.
      test::write_text(outside / "00/00.blob.gz", "outside");
      fs::create_directory_symlink(outside.path(), s->root() / "ff");
      test::write_text(s->root() / "0a", "a file with a folder's name");
      test::write_text(s->root() / "AB/cd/x", "uppercase folder");
      test::write_text(s->root() / "0b/cd", "a file where a leaf folder goes");
      fs::create_directory_symlink(outside / "00", s->root() / "0b/ee");
    }
    std::map<std::string, StoreEntry::Kind> by_name;
    for (const StoreEntry& e : s->entries_by_name()) {
      by_name[e.relative] = e.kind;
      EXPECT_EQ(e.size, 0u) << "listed by name: no stat";
    }
    EXPECT_EQ(by_name, walk(*s)) << s->root();
    const auto statted = s->stat(s->entry_for(b));
    ASSERT_TRUE(statted.has_value());
    EXPECT_EQ(statted->size, fs::file_size(s->path_of(b)));
    EXPECT_GT(statted->mtime, 0);
    fs::remove(s->path_of(b));
    EXPECT_FALSE(s->stat(s->entry_for(b)).has_value()) << "gone";
  }
}

TEST(KeptCopies, ALinkedKeptFolderIsRefusedBeforeAnythingIsWritten) {
  test::TempDir t, outside;
  fs::create_directories(t / ".git/jpblob");
  fs::create_directory_symlink(outside.path(), t / ".git/jpblob/kept");
  const BlobStore kept = BlobStore::kept_copies(t / ".git");
  EXPECT_THROW(kept.put("x"), Error);
  EXPECT_THROW(kept.entries(), Error);
  EXPECT_TRUE(fs::is_empty(outside.path()));
}

TEST(KeptCopies, ACorruptKeptCopyIsRepairedWithTheWorkTreeFile) {
  KeptSandbox k;
  const BlobStore &kept = k.kept, &store = k.store;
  const Digest d = store.put("content").digest;
  // Corrupted in place: both names are one file.
  { std::ofstream(store.path_of(d), std::ios::app) << "junk"; }
  EXPECT_THROW(kept.get(d), Error);
  EXPECT_TRUE(store.replace_corrupt(d, "content"));
  EXPECT_EQ(store.get(d), "content");
  EXPECT_EQ(kept.get(d), "content");
}

// A commit that staged every kept copy moves the folder aside whole
// (core/workspace/kept, retire_kept_copies): only when every entry is a
// copy that may go, and never while a writer holds the lock.
TEST(KeptCopies, RetiringMovesTheWholeFolderOnlyWhenEveryCopyMayGo) {
  KeptSandbox k;
  const BlobStore& kept = k.kept;
  const Digest a = kept.put("a").digest, b = kept.put("b").digest;
  const fs::path dest = retired_copies_folder(k.t / ".git") / "kept-1";
  const auto all = [](const Digest&) { return true; };
  EXPECT_EQ(kept.retire_to(dest, [&](const Digest& d) { return d == a; }), BlobStore::Retire::Declined);
  // A leftover temporary file is no copy that may go.
  test::write_text(kept.root() / ".jpblob-tmp-1-2-x", "partial");
  EXPECT_EQ(kept.retire_to(dest, all), BlobStore::Retire::Declined);
  fs::remove(kept.root() / ".jpblob-tmp-1-2-x");
  {
    const Fd writer(::open((k.t / ".git/jpblob/kept.lock").c_str(), O_RDONLY | O_CLOEXEC));
    ASSERT_TRUE(writer.valid()) << "the puts made the lock file";
    ASSERT_EQ(::flock(writer.get(), LOCK_SH), 0);
    EXPECT_EQ(kept.retire_to(dest, all), BlobStore::Retire::Busy);
  }
  EXPECT_TRUE(kept.contains(a) && kept.contains(b)) << "nothing moved until now";
  EXPECT_FALSE(fs::exists(dest));
  EXPECT_EQ(kept.retire_to(dest, all), BlobStore::Retire::Moved);
  EXPECT_FALSE(fs::exists(kept.root()));
  EXPECT_TRUE(fs::exists(dest / (a.hex() + ".blob.gz")) && fs::exists(dest / (b.hex() + ".blob.gz")));
  // The next write makes the folder again, though this store had it open.
  const Digest c = kept.put("c").digest;
  EXPECT_EQ(kept.get(c), "c");
  EXPECT_FALSE(fs::exists(dest / (c.hex() + ".blob.gz")));
  // A store without a write lock never moves.
  const Digest w = k.store.put("work tree").digest;
  EXPECT_EQ(k.store.retire_to(k.t / "elsewhere", all), BlobStore::Retire::Declined);
  EXPECT_TRUE(k.store.contains(w));
  EXPECT_FALSE(fs::exists(k.t / "elsewhere"));
}

// Writers racing retirements: a file published while the folder moves
// must not go with it unseen (it would be deleted with copies that are
// all staged). Every file in a moved folder is one `may_go` was asked of.
TEST(KeptCopies, NoWriteRacingARetirementGoesWithTheFolderUnseen) {
  KeptSandbox k;
  const BlobStore& kept = k.kept;
  std::atomic<bool> stop = false;
  std::thread writer([&] {
    // Large enough that compressing takes a while between opening the
    // folder and publishing the file.
    std::string text(256 * 1024, 'x');
    for (std::size_t i = 0; !stop; ++i) {
      for (std::size_t j = 0; j < text.size(); j += 4096) text[j] = static_cast<char>('a' + (i + j) % 26);
      text.replace(0, 20, std::to_string(i) + "                    ");
      kept.put(text);
      std::this_thread::sleep_for(std::chrono::microseconds(200));  // the lock free now and then
    }
  });
  std::size_t moved = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (int round = 0; moved < 100 && std::chrono::steady_clock::now() < until; ++round) {
    std::this_thread::sleep_for(std::chrono::microseconds(100));
    std::set<std::string> asked;
    const fs::path dest = retired_copies_folder(k.t / ".git") / ("kept-" + std::to_string(round));
    const auto retired = kept.retire_to(dest, [&](const Digest& d) {
      asked.insert(d.hex() + ".blob.gz");
      return true;
    });
    if (retired != BlobStore::Retire::Moved) continue;
    ++moved;
    for (const auto& e : fs::directory_iterator(dest))
      EXPECT_TRUE(asked.count(e.path().filename().string())) << e.path() << " went with the folder unseen";
  }
  stop = true;
  writer.join();
  EXPECT_GT(moved, 0u) << "no retirement happened: the test proves nothing";
}

TEST(KeptCopies, PurgingDeletesTheRetiredCopiesAndNothingElse) {
  KeptSandbox k;
  const fs::path git = k.t / ".git", retired = retired_copies_folder(git);
  k.kept.put("one");
  k.kept.put("two");
  ASSERT_EQ(k.kept.retire_to(retired / "kept-1", [](const Digest&) { return true; }), BlobStore::Retire::Moved);
  // Not ours: a stray file in another folder, and a link to one outside.
  test::TempDir outside;
  const Digest three = Sha256::of("three");
  test::write_text(outside / (three.hex() + ".blob.gz"), "outside");
  fs::create_directories(retired / "kept-2");
  test::write_text(retired / "kept-2" / "notes.txt", "a user's");
  fs::create_directory_symlink(outside.path(), retired / "kept-3");
  EXPECT_EQ(purge_retired_copies(git), 2u);
  EXPECT_FALSE(fs::exists(retired / "kept-1"));
  EXPECT_EQ(test::read_text(retired / "kept-2" / "notes.txt"), "a user's");
  EXPECT_EQ(test::read_text(outside / (three.hex() + ".blob.gz")), "outside");
  EXPECT_EQ(purge_retired_copies(git), 0u) << "nothing left, twice is harmless";
  EXPECT_EQ(purge_retired_copies(k.t / "no-such-folder"), 0u);
}

}  // namespace
}  // namespace jpblob
