// Blobs and trees into git's objects as one pack stream (core/git/blob_pack),
// against real git in SHA-1 and SHA-256 repositories: the ids git itself
// gives, a pack for many and loose objects for few, nothing referenced
// written when a file cannot be read, and the trees git's cache tree makes.
#include "core/git/blob_pack.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/base/error.hpp"
#include "core/git/git_cli.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

struct Repo : test::FormatRepo {
  using FormatRepo::FormatRepo;
  test::TempDir outside;  // the files to write, as a lean tree's git folder holds them
  std::size_t packs() const {
    std::size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir / ".git/objects/pack")) n += e.path().extension() == ".pack";
    return n;
  }
  std::vector<std::string> files(std::size_t n, const std::string& tag) const {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) {
      out.push_back((outside / (tag + std::to_string(i))).string());
      // Sizes across the header's one-byte and many-byte forms.
      test::write_text(out.back(), std::string(i * 37 % 300, 'x') + tag + std::to_string(i));
    }
    return out;
  }
};

std::string trimmed(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

class BlobPack : public ::testing::TestWithParam<std::string> {};

TEST_P(BlobPack, ManyBlobsArriveAsOnePackWithTheIdsGitGives) {
  Repo r(GetParam());
  const GitCli git(r.dir.path());
  auto files = r.files(150, "many");
  files.push_back(files[3]);  // the same file twice: one object, one id
  const auto ids = git.write_blobs(files, 1 << 20);
  ASSERT_EQ(ids.size(), files.size());
  EXPECT_EQ(ids.back(), ids[3]);
  for (std::size_t i = 0; i < 150; i += 7) {
    EXPECT_EQ(ids[i], trimmed(r.git("hash-object " + files[i]))) << i;
    EXPECT_EQ(r.git("cat-file blob " + ids[i]), test::read_text(files[i])) << i;
  }
  EXPECT_EQ(r.packs(), 1u);
  EXPECT_NE(r.git("count-objects -v").find("count: 0\n"), std::string::npos);  // none loose
  r.git("fsck --strict");
  // The pack and its index are written here, not by index-pack: git
  // checks every entry's CRC, offset and id against the index.
  for (const auto& e : fs::directory_iterator(r.dir / ".git/objects/pack"))
    if (e.path().extension() == ".idx") {
      const std::string listed = r.git("verify-pack -v " + e.path().string());
      EXPECT_NE(listed.find(ids[0] + " blob"), std::string::npos);
      EXPECT_EQ(e.status().permissions() & fs::perms::owner_write, fs::perms::none);  // read-only, as git's
    } else {
      EXPECT_EQ(e.path().extension(), ".pack") << e.path();  // no temporary file left
    }
}

// Objects are made a batch at a time on every core (at most 512, about
// 16 MB, a larger one alone): ids, offsets and CRCs must not care where
// the batches end, and a file that fails still fails at its own turn.
TEST_P(BlobPack, BatchesOfAnySizeMakeThePackGitReads) {
  Repo r(GetParam());
  const GitCli git(r.dir.path());
  auto files = r.files(1100, "batch");
  test::write_text(files[600], std::string(17u << 20, 'L') + "large");
  test::write_text(files[601], std::string(9u << 20, 'M'));
  test::write_text(files[602], std::string(9u << 20, 'N'));
  const auto ids = git.write_blobs(files, 64u << 20);
  ASSERT_EQ(ids.size(), files.size());
  for (std::size_t i : {0ul, 511ul, 512ul, 599ul, 600ul, 601ul, 602ul, 603ul, 1023ul, 1024ul, 1099ul})
    EXPECT_EQ(ids[i], trimmed(r.git("hash-object " + files[i]))) << i;
  for (const auto& e : fs::directory_iterator(r.dir / ".git/objects/pack"))
    if (e.path().extension() == ".idx") r.git("verify-pack " + e.path().string());
  r.git("fsck --strict");
  auto more = r.files(1100, "fails");
  fs::remove(more[900]);
  EXPECT_NE(test::error_of([&] { git.write_blobs(more, 1 << 20); }).find("fails900"), std::string::npos);
  EXPECT_EQ(r.packs(), 1u) << "the failed pack was kept";
}

TEST_P(BlobPack, GzipBlobsAreStoredUncompressedAndReadBackWhole) {
  Repo r(GetParam());
  const GitCli git(r.dir.path());
  std::vector<std::string> files;
  for (int i = 0; i < 120; ++i) {
    files.push_back((r.outside / ("b" + std::to_string(i) + ".blob.gz")).string());
    // A gzip header, then bytes that do not compress: as a blob file is.
    std::string bytes("\x1f\x8b\x08\x00", 4);
    for (int k = 0; k < 70000 + i; ++k) bytes.push_back(static_cast<char>((k * 2654435761u + i) >> 13));
    test::write_text(files.back(), bytes);
  }
  const auto ids = git.write_blobs(files, 1 << 20);
  for (std::size_t i = 0; i < files.size(); i += 13)
    EXPECT_EQ(r.git("cat-file blob " + ids[i]), test::read_text(files[i])) << i;
  r.git("fsck --strict");
  for (const auto& e : fs::directory_iterator(r.dir / ".git/objects/pack"))
    if (e.path().extension() == ".idx") r.git("verify-pack " + e.path().string());
}

TEST_P(BlobPack, ASharedRepositoryLeavesThePackToGit) {
  Repo r(GetParam());
  r.git("config core.sharedRepository group");
  const GitCli git(r.dir.path());
  const auto files = r.files(150, "shared");
  const auto ids = git.write_blobs(files, 1 << 20);
  EXPECT_EQ(r.packs(), 1u);
  for (const auto& e : fs::directory_iterator(r.dir / ".git/objects/pack"))
    EXPECT_NE(e.status().permissions() & fs::perms::group_read, fs::perms::none) << e.path();
  EXPECT_EQ(r.git("cat-file blob " + ids[9]), test::read_text(files[9]));
}

TEST_P(BlobPack, AFewBlobsAreWrittenLooseAsAFetchWould) {
  Repo r(GetParam());
  const GitCli git(r.dir.path());
  const auto files = r.files(5, "few");
  const auto ids = git.write_blobs(files, 1 << 20);
  EXPECT_EQ(r.packs(), 0u);
  EXPECT_NE(r.git("count-objects -v").find("count: 5\n"), std::string::npos);
  for (std::size_t i = 0; i < files.size(); ++i)
    EXPECT_EQ(ids[i], trimmed(r.git("hash-object " + files[i])));
}

TEST_P(BlobPack, AFileThatCannotBeReadStopsTheWriteAndKeepsNothing) {
  Repo r(GetParam());
  const GitCli git(r.dir.path());
  auto files = r.files(150, "gone");
  fs::remove(files[120]);
  EXPECT_THROW(git.write_blobs(files, 1 << 20), Error);
  EXPECT_EQ(r.packs(), 0u);  // git saw the pack end early and kept none of it
  // Too large for the limit: refused the same way.
  auto big = r.files(150, "big");
  test::write_text(big[140], std::string(5000, 'b'));
  EXPECT_THROW(git.write_blobs(big, 4096), Error);
  EXPECT_EQ(r.packs(), 0u);
  EXPECT_TRUE(fs::is_empty(r.dir / ".git/objects/pack"));  // no temporary file left either
  r.git("fsck --strict");
}

TEST_P(BlobPack, TreesAreTheOnesGitsCacheTreeMakes) {
  Repo r(GetParam());
  const GitCli git(r.dir.path());
  // Names whose order differs between files and folders: "a.b" sorts
  // before the folder "a" (compared as "a/"), and "a-" after.
  // "a0" after it ("/" < "0"); a folder closed three levels at once.
  for (const std::string p : {"store/a.b", "store/a/x", "store/a/y/z", "store/a-", "store/b/c", "top", "store/a0",
                              "store/x/y/z/w", "store/x/y0", "store/x.y/z", "store/x/y/z0", "store/y"})
    test::write_text(r.dir / p, p);
  r.git("add -A");
  std::vector<IndexEntry> below;
  for (const IndexEntry& e : git.index_entries({literal_pathspec("store")})) below.push_back(e);
  std::reverse(below.begin(), below.end());  // any order
  const auto trees = trees_below("store", below, git.object_format());
  const std::string root = trimmed(r.git("write-tree"));
  // store/a/y, store/a, store/b, store/x.y, store/x/y/z, store/x/y, store/x, store
  ASSERT_EQ(trees.size(), 8u);
  EXPECT_EQ(trees.back().first, "store");
  std::set<std::string> made;
  for (const auto& [path, bytes] : trees) {
    for (const std::string& inner : made) EXPECT_FALSE(path.starts_with(inner + "/")) << path << " after " << inner;
    made.insert(path);
  }
  for (const auto& [path, bytes] : trees)
    EXPECT_EQ(object_id(PackObject::Type::Tree, bytes, git.object_format()),
              trimmed(r.git("rev-parse " + root + ":" + path)))
        << path;
}

TEST_P(BlobPack, StagingManyBlobsLeavesGitNoTreeToWrite) {
  Repo r(GetParam());
  const GitCli git(r.dir.path());
  const auto files = r.files(300, "staged");
  std::vector<GitCli::OutOfTree> entries;
  for (std::size_t i = 0; i < files.size(); ++i)
    entries.push_back({".jp/blobs/" + std::to_string(i % 7) + "/" + std::to_string(i % 13) + "/f" + std::to_string(i),
                       files[i], {}});
  git.stage_out_of_tree(entries, 1 << 20);
  const std::string before = r.git("count-objects -v");
  r.git("write-tree");
  const std::string after = r.git("count-objects -v");
  // write-tree wrote only the two trees above the store (.jp and the
  // top); without the pack's trees it writes 7 * 13 + 7 + 1 more.
  auto loose = [](const std::string& counts) { return std::stoul(counts.substr(counts.find("count: ") + 7)); };
  EXPECT_EQ(loose(after) - loose(before), 2u);
  EXPECT_EQ(r.git("ls-files -v .jp/blobs").substr(0, 2), "S ");  // skip-worktree
  r.git("fsck --strict");
}

// A store checked out: thousands of new work-tree blob files staged at
// once. git's update-index finds each object in the pack and writes none
// loose, the entries are stat-clean, and a path a filter applies to is
// still hashed through that filter.
TEST_P(BlobPack, ManyWorkTreeFilesAreStagedFromOnePack) {
  Repo r(GetParam());
  const GitCli git(r.dir.path());
  r.git("config filter.upper.clean 'tr a-z A-Z'");
  r.write(".gitattributes", "*.up filter=upper\n");
  std::vector<std::string> paths;
  for (std::size_t i = 0; i < 150; ++i) {
    paths.push_back(".jp/blobs/" + std::to_string(i % 7) + "/" + std::to_string(i % 11) + "/f" + std::to_string(i) +
                    (i == 5 ? ".up" : ""));
    r.write(paths.back(), std::string(i * 37 % 300, 'x') + "file " + std::to_string(i));
  }
  git.add_many_to_index(paths, 1 << 20);
  EXPECT_EQ(r.packs(), 1u);
  // The one loose blob is the filtered file's, as its filter made it (the
  // 85 trees are loose too: fewer than a pack is worth).
  std::string loose_ids;
  for (const auto& fan : fs::directory_iterator(r.dir / ".git/objects"))
    if (fan.path().filename().string().size() == 2)
      for (const auto& o : fs::directory_iterator(fan.path()))
        loose_ids += fan.path().filename().string() + o.path().filename().string() + "\n";
  std::string types = r.git("cat-file --batch-check='%(objecttype)' <<'EOF'\n" + loose_ids + "EOF");
  std::size_t blobs = 0;
  for (std::size_t at = types.find("blob\n"); at != std::string::npos; at = types.find("blob\n", at + 1)) ++blobs;
  EXPECT_EQ(blobs, 1u) << types;
  EXPECT_EQ(r.git("cat-file blob :" + paths[5]), std::string(5 * 37 % 300, 'X') + "FILE 5");
  for (std::size_t i = 0; i < paths.size(); i += 13)
    EXPECT_EQ(trimmed(r.git("rev-parse :" + paths[i])), trimmed(r.git("hash-object " + paths[i]))) << i;
  EXPECT_EQ(r.git("diff --name-only"), "");  // stat-clean: update-index recorded each file
  // The trees are written already: write-tree adds only the two above.
  auto loose = [&] { return std::stoul(r.git("count-objects -v").substr(7)); };
  const auto before = loose();
  r.git("write-tree");
  EXPECT_EQ(loose() - before, 2u);
  r.git("fsck --strict");
}

INSTANTIATE_TEST_SUITE_P(ObjectFormats, BlobPack, ::testing::Values("sha1", "sha256"));

}  // namespace
}  // namespace jpblob
