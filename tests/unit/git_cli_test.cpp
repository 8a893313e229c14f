// The git module against real git: SHA-1 and SHA-256 repositories, names
// that look like pathspec magic or hold newlines, and many paths at once.
#include "core/git/git_cli.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <tuple>

#include "core/base/error.hpp"
#include "core/git/index_file.hpp"
#include "core/git/object_hash.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

using Repo = test::FormatRepo;

class GitCliTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GitCliTest, ReadsIdsOfTheRepositorysLengthAndTakesPathsLiterally) {
  Repo r(GetParam());
  const std::size_t id_length = GetParam() == "sha256" ? 64 : 40;
  r.write("7-[ab]/events.json", "bracket");
  r.write("7-a/events.json", "plain");
  r.write("star*/x", "star");
  r.write("new\nline/x", "newline");
  r.write("sp ace/x", "space");
  r.git("add -A");
  const GitCli git(r.dir.path());

  const auto entries = git.index_entries({"."});
  ASSERT_EQ(entries.size(), 5u);
  for (const auto& e : entries) {
    EXPECT_EQ(e.id.size(), id_length) << e.path;
    EXPECT_EQ(e.mode, "100644");
    EXPECT_EQ(e.stage, 0);
  }
  EXPECT_TRUE(std::any_of(entries.begin(), entries.end(), [](const auto& e) { return e.path == "new\nline/x"; }));

  // Literal pathspecs: "7-[ab]" names only that folder.
  const auto literal = git.index_entries({literal_pathspec("7-[ab]")});
  ASSERT_EQ(literal.size(), 1u);
  EXPECT_EQ(literal[0].path, "7-[ab]/events.json");

  const auto ids = git.index_ids({"7-[ab]/events.json", "7-a/events.json", "new\nline/x", "sp ace/x", "absent",
                                  "star*/x", "absent\nwith newline"});
  EXPECT_EQ(ids.size(), 5u);
  EXPECT_EQ(ids.count("absent"), 0u);
  EXPECT_EQ(ids.at("7-a/events.json"), r.git("rev-parse :7-a/events.json").substr(0, id_length));
  EXPECT_NE(ids.at("7-[ab]/events.json"), ids.at("7-a/events.json"));

  // Before the first commit, everything staged is added.
  auto changes = git.staged_changes({"."});
  ASSERT_EQ(changes.size(), 5u);
  for (const auto& c : changes) {
    EXPECT_EQ(c.status, 'A');
    EXPECT_EQ(c.new_id.size(), id_length);
    EXPECT_EQ(c.new_mode, "100644");
  }
  r.git("commit -qm one");
  r.write("7-a/events.json", "changed");
  r.git("add 7-a");
  changes = git.staged_changes({literal_pathspec("7-a")});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].status, 'M');
  EXPECT_EQ(changes[0].old_id.size(), id_length);
  r.git("commit -qm two");

  const auto tree = git.tree_entries("HEAD", {literal_pathspec("7-[ab]")});
  ASSERT_EQ(tree.size(), 1u);
  EXPECT_EQ(tree[0].type, "blob");
  EXPECT_EQ(tree[0].id.size(), id_length);
  EXPECT_EQ(git.all_commits().size(), 2u);
  for (const auto& c : git.all_commits()) EXPECT_EQ(c.size(), id_length);

  // Removal from the index touches only what it holds.
  EXPECT_EQ(git.remove_from_index({"7-[ab]/events.json", "absent"}), 1u);
  EXPECT_EQ(git.index_ids({"7-[ab]/events.json", "7-a/events.json"}).size(), 1u);
  EXPECT_EQ(git.remove_from_index({"absent"}), 0u);
  // And back, by exact path.
  git.add_to_index({"7-[ab]/events.json"});
  EXPECT_EQ(git.index_ids({"7-[ab]/events.json"}).size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(ObjectFormats, GitCliTest, ::testing::Values("sha1", "sha256"));

TEST(GitCli, ManyPathsGoThroughStandardInput) {
  Repo r("sha1");
  // Names long enough that 20,000 of them as arguments exceed the kernel's
  // limit on one argument list (2 MiB by default).
  std::vector<std::string> paths;
  const std::string folder = "f/" + std::string(120, 'x');
  for (int i = 0; i < 20000; ++i) paths.push_back(folder + "/" + std::to_string(i));
  test::must("mkdir -p " + test::shell_quote(folder) + " && cd " + test::shell_quote(folder) +
                 " && seq 0 19999 | xargs touch",
             r.dir.path());
  const GitCli git(r.dir.path());
  git.add_to_index(paths);
  EXPECT_EQ(git.index_ids(paths).size(), 20000u);
  EXPECT_EQ(git.remove_from_index(paths), 20000u);
  EXPECT_TRUE(git.index_entries({"f"}).empty());
  git.add(paths);
  EXPECT_EQ(git.index_entries({"f"}).size(), 20000u);
}

// git flushes each record of check-attr into a pipe unless told not to:
// 114,000 blob paths' attributes were half a second of wake-ups. A command
// that runs other tools' filters (update-index) must not hand the setting
// on: a filter asking check-attr one path at a time through a pipe of its
// own would never get its answer. A stand-in `git` first on PATH records
// what each command got.
TEST(GitCli, OnlyCheckAttrsOutputIsBufferedWhole) {
  Repo r("sha1");
  // It reads its input whole: a write into a pipe nobody reads is SIGPIPE.
  test::must("mkdir bin && printf '#!/bin/sh\\necho \"$1 ${GIT_FLUSH-unset}\" >> \"%s\"\\ncat > /dev/null\\n' " +
                 test::shell_quote((r.dir / "calls").string()) + " > bin/git && chmod +x bin/git",
             r.dir.path());
  const std::string path = (r.dir / "bin").string() + ":" + std::getenv("PATH");
  const test::ScopedEnv on_path("PATH", path.c_str());
  const GitCli git(r.dir.path());
  EXPECT_TRUE(git.filters_of({"a"}).empty());
  git.add_to_index({"a"});
  EXPECT_EQ(test::read_text(r.dir / "calls"), "check-attr 0\nupdate-index unset\n");
}

TEST(GitCli, AnotherIndexFileIsUsedOnlyWhenAsked) {
  Repo r("sha1");
  r.write("a", "a");
  const GitCli git(r.dir.path());
  const GitCli other = git.with_index(r.dir / ".git/other-index");
  other.add_to_index({"a"});
  EXPECT_EQ(other.index_entries({"."}).size(), 1u);
  EXPECT_TRUE(git.index_entries({"."}).empty());
}

// A clone's post-checkout hook marks thousands of blob entries
// skip-worktree right after git wrote the conversations. git's own write
// re-checks each entry whose file is as new as the index (racily clean):
// with the filter, a clean of the whole conversation (1.6 s of a
// 1,000-conversation clone's 2.3 s hook); without it, the entry is marked
// modified for plumbing until a refresh. In place, the entries' stat data,
// the cache tree and the index's timestamp stay as they were.
class InPlaceMarking : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(InPlaceMarking, KeepsStatDataTimestampAndCacheTree) {
  const auto& [format, version] = GetParam();
  Repo r(format);
  const test::TempDir outside;
  const fs::path log = outside / "cleans.log";
  // A clean that changes the bytes (as ours does) and says when it runs.
  r.git("config filter.jpblob.clean " +
        test::shell_quote("sh -c 'echo run >> " + log.string() + "; tr a-z A-Z'"));
  r.git("config filter.jpblob.required true");
  r.write(".gitattributes", "*.conv filter=jpblob\n");
  r.write("x.conv", "hello\n");
  for (const char* f : {"other", "a/b", "a/bc", "a/c/d"}) {
    fs::create_directories((r.dir / f).parent_path());
    r.write(f, f);
  }
  r.git("add -A && git commit -qm c && git update-index --index-version " + std::to_string(version));
  r.git("write-tree");  // a whole cache tree
  const GitCli git(r.dir.path());
  // The index as old as the file: git cannot tell a same-second edit.
  const auto make_racy = [&] { test::must("touch -r x.conv .git/index", r.dir.path()); };
  make_racy();
  std::size_t before = test::read_text(log).size();
  git.set_skip_worktree({"other"});
  ASSERT_GT(test::read_text(log).size(), before) << "git's write re-checked nothing: nothing is measured here";
  git.set_skip_worktree({"other"}, false);
  r.git("write-tree");
  make_racy();
  const std::string stat_before = r.git("ls-files --debug x.conv");
  const auto mtime = fs::last_write_time(r.dir / ".git/index");
  before = test::read_text(log).size();
  ASSERT_TRUE(git.set_skip_worktree_in_place({"other", "a/b", "a/c/d", "not/there"}));
  EXPECT_EQ(test::read_text(log).size(), before) << "the filter ran";
  EXPECT_EQ(fs::last_write_time(r.dir / ".git/index"), mtime) << "the index's timestamp changed";
  EXPECT_EQ(r.git("ls-files --debug x.conv"), stat_before) << "the racy entry's stat data changed";
  EXPECT_EQ(r.git("ls-files -t"), "H .gitattributes\nS a/b\nH a/bc\nS a/c/d\nS other\nH x.conv\n");
  EXPECT_FALSE(fs::exists(r.dir / ".git/index.lock"));
  // git reads it: the cache tree is whole (write-tree writes no tree) and
  // the racy entry is checked by content, with the filter, unmodified.
  const std::string objects = r.git("count-objects");
  EXPECT_EQ(r.git("write-tree"), r.git("rev-parse HEAD^{tree}"));
  EXPECT_EQ(r.git("count-objects"), objects);
  EXPECT_EQ(test::run("git diff-index --quiet HEAD --", r.dir.path()).status, 0);
  EXPECT_EQ(r.git("status --porcelain"), "");
  EXPECT_GT(test::read_text(log).size(), before) << "the racy entry was not checked by content";
  EXPECT_EQ(r.git("fsck --no-dangling 2>&1"), "");
  // git's own flags for a marked entry (CE_SKIP_WORKTREE, CE_EXTENDED), in a version 2
  // index made version 3 as git makes it.
  EXPECT_NE(r.git("ls-files --debug other").find("flags: 40004000"), std::string::npos) << r.git("ls-files --debug other");
  // Marked already: true, and nothing written.
  EXPECT_TRUE(git.set_skip_worktree_in_place({"other"}));
}

// Both object formats, each index version git writes.
const auto kFormatsAndVersions = ::testing::Combine(::testing::Values("sha1", "sha256"), ::testing::Values(2, 3, 4));

INSTANTIATE_TEST_SUITE_P(FormatsAndVersions, InPlaceMarking, kFormatsAndVersions);

// Where it cannot be sure, it changes nothing and says so: the caller asks
// git then.
TEST(InPlaceMarkingRefuses, ALockACorruptIndexAndASplitIndex) {
  Repo r("sha1");
  r.write("a", "a");
  r.write("b", "b");
  r.git("add -A && git commit -qm c");
  const GitCli git(r.dir.path());
  const fs::path index = r.dir / ".git/index";
  const std::string bytes = test::read_text(index);
  test::write_text(r.dir / ".git/index.lock", "");
  EXPECT_FALSE(git.set_skip_worktree_in_place({"a"})) << "another git holds the lock";
  EXPECT_TRUE(fs::exists(r.dir / ".git/index.lock")) << "someone else's lock was taken away";
  fs::remove(r.dir / ".git/index.lock");
  std::string corrupt = bytes;
  corrupt[20] ^= 1;
  test::write_text(index, corrupt);
  EXPECT_FALSE(git.set_skip_worktree_in_place({"a"})) << "a checksum that does not match";
  EXPECT_EQ(test::read_text(index), corrupt);
  test::write_text(index, bytes);
  r.git("update-index --split-index");
  const std::string split = test::read_text(index);
  EXPECT_FALSE(git.set_skip_worktree_in_place({"a"})) << "a split index (link)";
  EXPECT_EQ(test::read_text(index), split);
  EXPECT_FALSE(fs::exists(r.dir / ".git/index.lock"));
}

// Blobs staged by the hook enter the index in one pass (index_file.hpp):
// the same entries, ids, flags and trees as git's update-index
// --index-info then --skip-worktree, every other entry's bytes as they
// were, the folders above the new entries written again by git, the
// index's timestamp kept.
class InPlaceAdding : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(InPlaceAdding, GivesWhatGitsUpdateIndexGives) {
  const auto& [format, version] = GetParam();
  Repo ours(format), theirs(format);
  std::vector<std::string> blobs;
  for (Repo* r : {&ours, &theirs}) {
    for (const char* f : {".jp/blobs/aa/bb/old.blob.gz", ".jp/conversations/1/events.json",
                          ".jp/conversations/2/events.json", "a", "z/y"})
      r->write(f, f);
    r->git("add -A && git commit -qm c && git update-index --index-version " + std::to_string(version));
    // Version 2 stays 2 until an entry has extended flags: here the new ones.
    if (version > 2) r->git("update-index --skip-worktree .jp/blobs/aa/bb/old.blob.gz");
    r->git("write-tree");
    r->git("update-index --untracked-cache");  // UNTR, which new entries may change
  }
  std::vector<std::string> ids;
  for (int i = 0; i < 4; ++i) {
    const std::string text = "blob " + std::to_string(i);
    ours.write("outside" + std::to_string(i), text);
    ids.push_back(ours.git("hash-object -w outside" + std::to_string(i)).substr(0, format == "sha256" ? 64 : 40));
    theirs.write("outside" + std::to_string(i), text);
    theirs.git("hash-object -w outside" + std::to_string(i));
  }
  // A new folder, the folder that has one already, one path in place of
  // the same path (a new id), one at the very end.
  const std::vector<std::string> paths = {".jp/blobs/cc/dd/new.blob.gz", ".jp/blobs/aa/bb/new.blob.gz",
                                          ".jp/blobs/aa/bb/old.blob.gz", "zz/last"};
  std::string info;
  std::vector<NewIndexEntry> adding;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    info += "100644 " + ids[i] + "\t" + paths[i] + "\n";
    adding.push_back({paths[i], 0100644, raw_object_id(ids[i])});
  }
  test::write_text(theirs.dir / "info", info);
  theirs.git("update-index --index-info < info && git update-index --skip-worktree " +
             std::accumulate(paths.begin(), paths.end(), std::string(), [](std::string a, const std::string& p) {
               return a + " " + p;
             }));
  const auto mtime = fs::last_write_time(ours.dir / ".git/index");
  const std::string before = ours.git("ls-files --debug a");
  ASSERT_TRUE(add_entries_in_place(ours.dir / ".git/index", adding, format));
  EXPECT_EQ(fs::last_write_time(ours.dir / ".git/index"), mtime) << "the index's timestamp changed";
  EXPECT_EQ(ours.git("ls-files --debug a"), before) << "an entry not added changed";
  EXPECT_FALSE(fs::exists(ours.dir / ".git/index.lock"));
  EXPECT_EQ(ours.git("ls-files -s -t"), theirs.git("ls-files -s -t"));
  for (const std::string& p : paths)
    EXPECT_EQ(ours.git("ls-files --debug " + p), theirs.git("ls-files --debug " + p)) << p;
  // The trees above the new entries are written again; the others are kept.
  EXPECT_EQ(ours.git("write-tree"), theirs.git("write-tree"));
  EXPECT_EQ(ours.git("fsck --no-dangling 2>&1"), "");
  EXPECT_EQ(ours.git("status --porcelain --untracked-files=no"), theirs.git("status --porcelain --untracked-files=no"));
  EXPECT_EQ(ours.git("commit -qm next && git show --stat --format= HEAD"), theirs.git("commit -qm next && git show --stat --format= HEAD"));
}

INSTANTIATE_TEST_SUITE_P(FormatsAndVersions, InPlaceAdding, kFormatsAndVersions);

// git's end of index entries (EOIE), which lets it read the extensions
// beside the entries: the in-place edits write it again where the index
// had one, or where asked (a lean clone's first marking), byte for byte
// as git writes it for the same entries and extensions; where neither, the
// index stays without.
class InPlaceEndOfEntries : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(InPlaceEndOfEntries, IsWrittenAsGitWritesIt) {
  const auto& [format, version] = GetParam();
  Repo r(format);
  for (const char* f : {".jp/blobs/aa/bb/old.blob.gz", ".jp/conversations/1/events.json", "a", "z/y"})
    r.write(f, f);
  r.git("add -A && git commit -qm c && git update-index --index-version " + std::to_string(version));
  r.git("write-tree");  // a cache tree (TREE), the extension before EOIE
  const fs::path index = r.dir / ".git/index";
  const std::size_t hash_size = format == "sha256" ? 32 : 20;
  const std::size_t eoie_size = 8 + 4 + hash_size;
  // The EOIE extension at the file's end, or "" when it has none.
  const auto end_of_entries = [&] {
    const std::string bytes = test::read_text(index);
    const std::string tail = bytes.substr(bytes.size() - hash_size - eoie_size, eoie_size);
    return tail.starts_with("EOIE") ? tail : std::string();
  };
  // What git writes for the index as it stands, with the setting on.
  const auto gits = [&] {
    const std::string before = test::read_text(index);
    r.git("-c index.recordEndOfIndexEntries=true update-index --force-write-index");
    const std::string eoie = end_of_entries();
    test::write_text(index, before);
    return eoie;
  };
  const GitCli git(r.dir.path());
  const std::string blob = r.git("rev-parse HEAD:a").substr(0, hash_size * 2);

  // Without one, and not asked: none.
  ASSERT_EQ(end_of_entries(), "");
  ASSERT_TRUE(git.set_skip_worktree_in_place({"a"}));
  EXPECT_EQ(end_of_entries(), "");
  // Asked (a version 2 index grows to 3: the offset moves).
  ASSERT_TRUE(git.set_skip_worktree_in_place({"z/y"}, true));
  ASSERT_NE(end_of_entries(), "");
  EXPECT_EQ(end_of_entries(), gits());
  // Kept: marking, then adding entries (the cache tree loses folders).
  ASSERT_TRUE(git.set_skip_worktree_in_place({".jp/blobs/aa/bb/old.blob.gz"}));
  EXPECT_EQ(end_of_entries(), gits());
  ASSERT_TRUE(add_entries_in_place(index, {{".jp/blobs/cc/dd/new.blob.gz", 0100644, raw_object_id(blob)}}, format));
  ASSERT_NE(end_of_entries(), "");
  EXPECT_EQ(end_of_entries(), gits());
  EXPECT_EQ(r.git("ls-files -t .jp/blobs"), "S .jp/blobs/aa/bb/old.blob.gz\nS .jp/blobs/cc/dd/new.blob.gz\n");
  EXPECT_EQ(r.git("fsck --no-dangling 2>&1"), "");
  // With no extension before it (git reads none then, and writes it still).
  r.git("-c index.recordEndOfIndexEntries=true update-index --force-write-index --untracked-cache");
  r.git("-c index.recordEndOfIndexEntries=true update-index --no-untracked-cache");
  ASSERT_NE(end_of_entries(), "");
  ASSERT_TRUE(add_entries_in_place(index, {{"zz", 0100644, raw_object_id(blob)}}, format));
  EXPECT_EQ(end_of_entries(), gits());
}

INSTANTIATE_TEST_SUITE_P(FormatsAndVersions, InPlaceEndOfEntries, kFormatsAndVersions);

// Where git would refuse the entries, or the index is one it cannot be
// sure of, nothing changes: git is asked then, and says why.
TEST(InPlaceAddingRefuses, AConflictAFileWhereAFolderGoesAndASplitIndex) {
  Repo r("sha1");
  r.write("a", "a");
  r.write("d/e", "e");
  r.git("add -A && git commit -qm c");
  const std::string id = raw_object_id(r.git("rev-parse HEAD:a").substr(0, 40));
  const fs::path index = r.dir / ".git/index";
  const std::string bytes = test::read_text(index);
  EXPECT_THROW(add_entries_in_place(index, {{"a/x", 0100644, id}}, "sha1"), IndexEntryInTheWay)
      << "a file where a folder goes: git's --index-info would replace it";
  EXPECT_THROW(add_entries_in_place(index, {{"d", 0100644, id}}, "sha1"), IndexEntryInTheWay)
      << "a folder where a file goes: git's --index-info would replace what is below";
  EXPECT_FALSE(add_entries_in_place(index, {{"b", 0100644, id}, {"b", 0100644, id}}, "sha1")) << "a path twice";
  EXPECT_EQ(test::read_text(index), bytes);
  // A conflict at the path.
  const std::string blob = r.git("rev-parse HEAD:a").substr(0, 40);
  test::write_text(r.dir / "info", "0 " + std::string(40, '0') + "\tc\n100644 " + blob + " 1\tc\n100644 " + blob + " 2\tc\n");
  r.git("update-index --index-info < info");
  const std::string conflicted = test::read_text(index);
  EXPECT_FALSE(add_entries_in_place(index, {{"c", 0100644, id}}, "sha1")) << "a path in conflict";
  EXPECT_EQ(test::read_text(index), conflicted);
  r.git("rm -q --cached c");
  // Names that sort between a path and what lies below it ('-' and '.'
  // before '/', '0' after): found by the index's order, not by a scan.
  for (const char* f : {"d-x", "d.y", "d0", "a-b", "a0"}) r.write(f, f);
  r.git("add -A");
  const std::string sorted = test::read_text(index);
  EXPECT_THROW(add_entries_in_place(index, {{"d", 0100644, id}}, "sha1"), IndexEntryInTheWay) << "d/e is below it";
  EXPECT_THROW(add_entries_in_place(index, {{"a/b/c", 0100644, id}}, "sha1"), IndexEntryInTheWay) << "a is a file";
  EXPECT_EQ(test::read_text(index), sorted);
  EXPECT_THROW(add_entries_in_place(index, {{"d-x/z", 0100644, id}}, "sha1"), IndexEntryInTheWay) << "d-x is a file";
  EXPECT_FALSE(fs::exists(r.dir / ".git/index.lock"));
  EXPECT_TRUE(add_entries_in_place(index, {{"d-", 0100644, id}, {"d1/z", 0100644, id}}, "sha1"));
  EXPECT_EQ(r.git("ls-files d- d1"), "d-\nd1/z\n");
  r.git("update-index --split-index");
  const std::string split = test::read_text(index);
  EXPECT_FALSE(add_entries_in_place(index, {{"b", 0100644, id}}, "sha1")) << "a split index (link)";
  EXPECT_EQ(test::read_text(index), split);
  EXPECT_FALSE(fs::exists(r.dir / ".git/index.lock"));
}

// A submodule (or a file) where staged blobs need a folder, or an entry
// below where a blob file goes: git's --index-info would replace them, and
// the commit would delete them.
// Refused before anything is staged, by the hook's own edit of the index
// and, where git stages (a split index), by asking git first. cat-file
// cannot tell: the submodule's commit is not in this repository.
TEST(InPlaceAddingRefuses, EntriesInABlobsWayEitherWay) {
  for (const bool split : {false, true}) {
    SCOPED_TRACE(split ? "split index" : "in place");
    Repo r("sha1");
    r.write("README", "r");
    r.git("add README && git update-index --add --cacheinfo 160000," + std::string(40, '1') + ",.jp/blobs");
    if (split) r.git("update-index --split-index");
    const std::string listed = r.git("ls-files -s");
    r.write("blob", "bytes");
    const GitCli git(r.dir.path());
    const std::string msg = test::error_of([&] {
      git.stage_out_of_tree({{".jp/blobs/aa/bb/x.blob.gz", (r.dir.path() / "blob").string(), {}}}, 1 << 20);
    });
    EXPECT_NE(msg.find("the index holds .jp/blobs as a file, where they go in a folder. Nothing was staged"),
              std::string::npos) << msg;
    EXPECT_EQ(r.git("ls-files -s"), listed);
    EXPECT_FALSE(fs::exists(r.dir / ".git/index.lock"));
    // The other way round: an entry below where a blob file goes.
    r.git("rm -q --cached .jp/blobs && git update-index --add --cacheinfo 100644," +
          r.git("hash-object -w README").substr(0, 40) + ",.jp/blobs/aa/bb/x.blob.gz/inner");
    if (split) r.git("update-index --split-index");
    const std::string below = r.git("ls-files -s");
    const std::string msg2 = test::error_of([&] {
      git.stage_out_of_tree({{".jp/blobs/aa/bb/x.blob.gz", (r.dir.path() / "blob").string(), {}}}, 1 << 20);
    });
    EXPECT_NE(msg2.find("cannot stage .jp/blobs/aa/bb/x.blob.gz: the index holds .jp/blobs/aa/bb/x.blob.gz/inner "
                        "below it"), std::string::npos) << msg2;
    EXPECT_EQ(r.git("ls-files -s"), below);
    EXPECT_FALSE(fs::exists(r.dir / ".git/index.lock"));
  }
}

// Entries out of git's order (a tool's bug, or bytes edited by hand) under
// a checksum that matches: looked up by that order, they could hide a
// conflict, so the index is left for git, which says what is wrong.
TEST(InPlaceAddingRefuses, AnIndexOutOfGitsOrder) {
  Repo r("sha1");
  r.write("a", "1");
  r.write("b", "2");
  r.git("add -A && git update-index --index-version 2");
  const fs::path index = r.dir / ".git/index";
  std::string bytes = test::read_text(index);
  // Two entries of one length (62 bytes, the name, padding: 64): swapped.
  const std::string first = bytes.substr(12, 64), second = bytes.substr(76, 64);
  ASSERT_EQ(first.substr(62, 1), "a");
  ASSERT_EQ(second.substr(62, 1), "b");
  bytes.replace(12, 64, second).replace(76, 64, first);
  bytes.resize(bytes.size() - 20);
  ObjectHasher hash("sha1");
  hash.update(bytes);
  bytes += hash.finish_raw();
  test::write_text(index, bytes);
  const std::string id = raw_object_id(r.git("hash-object -w a").substr(0, 40));
  EXPECT_FALSE(add_entries_in_place(index, {{"c", 0100644, id}}, "sha1"));
  EXPECT_FALSE(mark_skip_worktree_in_place(index, {"a"}, "sha1"));
  EXPECT_EQ(test::read_text(index), bytes);
}

// gc leaves out a work-tree document git's index holds with the stat data
// the file still has (core/maintenance/live_set): any doubt must read it.
class IndexSnapshotTest : public ::testing::TestWithParam<std::tuple<std::string, int>> {};

TEST_P(IndexSnapshotTest, AFileIsUnchangedOnlyByGitsOwnTestAndNeverRacily) {
  const auto& [format, version] = GetParam();
  Repo r(format);
  for (const char* f : {"a", "b", "c", "d", "e", "sub/f"}) {
    fs::create_directories((r.dir / f).parent_path());
    r.write(f, std::string("content of ") + f);
  }
  // Files older than the index, as after any add a second later.
  test::must("touch -d '1 minute ago' a b c d e sub/f", r.dir.path());
  r.git("add -A && git update-index --index-version " + std::to_string(version));
  const fs::path index = r.dir / ".git/index";
  auto snapshot = read_index_snapshot(index, format);
  ASSERT_TRUE(snapshot.has_value());
  ASSERT_EQ(snapshot->files.size(), 6u);
  EXPECT_EQ(snapshot->files.at("sub/f").id, r.git("rev-parse :sub/f").substr(0, format == "sha1" ? 40 : 64));
  const auto unchanged = [&](const std::string& f) {
    return unchanged_since_indexed(*snapshot, snapshot->files.at(f), r.dir / f);
  };
  for (const char* f : {"a", "b", "c", "d", "e", "sub/f"}) EXPECT_TRUE(unchanged(f)) << f;
  // The same size and modification time, other bytes: the change time tells.
  test::must("cp -p a a.keep && printf 'CONTENT of a' > a && touch -r a.keep a && rm a.keep", r.dir.path());
  EXPECT_FALSE(unchanged("a"));
  r.write("b", "longer content of b");
  EXPECT_FALSE(unchanged("b")) << "another size";
  fs::remove(r.dir / "c");
  EXPECT_FALSE(unchanged("c")) << "gone";
  fs::remove(r.dir / "d");
  fs::create_symlink("e", r.dir / "d");
  EXPECT_FALSE(unchanged("d")) << "a link now";
  // Racily clean: the index written in the file's second.
  r.git("add -A");
  test::must("touch -r e .git/index", r.dir.path());
  snapshot = read_index_snapshot(index, format);
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_FALSE(unchanged("e")) << "as new as the index: git would read it again";
  test::must("touch -d '1 minute ago' e && git add e", r.dir.path());
  snapshot = read_index_snapshot(index, format);
  EXPECT_TRUE(unchanged("e"));
  // Entries git does not compare: assume-unchanged, skip-worktree.
  r.git("update-index --assume-unchanged e --skip-worktree sub/f");
  snapshot = read_index_snapshot(index, format);
  ASSERT_TRUE(snapshot.has_value());
  EXPECT_FALSE(unchanged("e")) << "assume-unchanged";
  EXPECT_FALSE(unchanged("sub/f")) << "skip-worktree";
  // A split index keeps entries in another file: not read at all.
  r.git("update-index --no-assume-unchanged e --no-skip-worktree sub/f && git update-index --split-index");
  EXPECT_FALSE(read_index_snapshot(index, format).has_value());
  EXPECT_FALSE(read_index_snapshot(r.dir / "no-such-index", format).has_value());
}

INSTANTIATE_TEST_SUITE_P(FormatsAndVersions, IndexSnapshotTest, kFormatsAndVersions);

// The promisor remote's name comes from .git/config (extensions.partialClone
// or remote.<name>.promisor): a name that looks like an option is a name to
// git, never an option such as --upload-pack, which runs a command.
TEST(GitCli, FetchTakesTheRemoteAsANameNeverAnOption) {
  Repo origin("sha1");
  origin.write("a", "content");
  origin.git("add a && git commit -qm a");
  test::TempDir clones;
  test::must("git clone -q " + test::shell_quote(origin.dir.path().string()) + " c", clones.path());
  // An object the clone lacks, or git fetches nothing at all.
  origin.write("a", "more content");
  origin.git("commit -qam b");
  const std::string id = origin.git("rev-parse HEAD").substr(0, 40);
  const fs::path marker = clones / "ran";
  const GitCli git(clones / "c");
  EXPECT_FALSE(git.fetch_objects("--upload-pack=touch " + test::shell_quote(marker.string()) + "; git-upload-pack",
                                 {id}));
  EXPECT_FALSE(fs::exists(marker)) << "the remote's name ran as an option";
  EXPECT_TRUE(git.fetch_objects("origin", {id}));
}

TEST(GitCli, LayoutWorktreesAndConfig) {
  Repo r("sha1");
  r.write("a", "a");
  r.git("add a && git commit -qm a");
  const GitCli git(r.dir.path());
  fs::create_directories(r.dir / "sub");
  const auto layout = GitCli(r.dir / "sub").layout();
  ASSERT_TRUE(layout);
  EXPECT_TRUE(fs::equivalent(layout->top, r.dir.path()));
  EXPECT_EQ(layout->hooks, fs::absolute(layout->top / ".git/hooks").lexically_normal());
  r.git("config core.hooksPath .githooks");
  EXPECT_EQ(git.layout()->hooks, layout->top / ".githooks");
  test::TempDir not_a_repo;
  test::ScopedEnv ceiling("GIT_CEILING_DIRECTORIES", not_a_repo.path().parent_path().c_str());
  EXPECT_FALSE(GitCli(not_a_repo.path()).layout());

  test::TempDir linked;
  r.git("worktree add -q " + test::shell_quote((linked / "wt").string()));
  const auto worktrees = git.worktrees();
  ASSERT_EQ(worktrees.size(), 2u);
  EXPECT_TRUE(fs::equivalent(worktrees[1], linked / "wt"));

  EXPECT_EQ(git.config_get("x.y", ConfigScope::Local), std::nullopt);
  git.config_set("x.y", "a value", ConfigScope::Local);
  EXPECT_EQ(git.config_get("x.y", std::nullopt), "a value");
  git.config_set("x.flag", "YES", ConfigScope::Local);
  EXPECT_EQ(git.config_get("x.flag", std::nullopt, "bool"), "true");
  EXPECT_TRUE(git.config_unset("x.y", ConfigScope::Local));
  EXPECT_FALSE(git.config_unset("x.y", ConfigScope::Local));
  EXPECT_FALSE(git.config_remove_empty_section("x", ConfigScope::Local)) << "x.flag is left";
  git.config_unset("x.flag", ConfigScope::Local);
  git.config_remove_empty_section("x", ConfigScope::Local);
  EXPECT_EQ(test::read_text(r.dir / ".git/config").find("[x]"), std::string::npos) << "an empty section is left";
  // A failing command names what was asked and git's message.
  EXPECT_NE(test::error_of([&] { git.tree_entries("no-such-commit", {"."}); }).find("cannot list commit no-such-commit"),
            std::string::npos);
}

}  // namespace
}  // namespace jpblob
