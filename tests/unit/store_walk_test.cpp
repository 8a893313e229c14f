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
  const BlobStore flat(flat_root / "kept", flat_root.path(), {}, StoreLayout::Flat);
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

// gc lists kept copies by name (100,000 stats cost 0.3 s) and stats only
// the few it may delete.
TEST(StoreWalk, ListingByNameAgreesWithTheWalkInBothLayouts) {
  test::TempDir t;
  fs::create_directory(t / ".git");
  const BlobStore kept(t / ".git/jpblob/kept", t / ".git", {}, StoreLayout::Flat);
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

}  // namespace
}  // namespace jpblob
