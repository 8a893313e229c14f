// The libgit2 1.5 gaps that git_repo.cpp works around, each against a real
// repository made by real git, and the smudge fallback to git's objects.
#include "core/git/git_repo.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "core/base/error.hpp"
#include "core/format/gzip.hpp"
#include "core/documents/transform.hpp"
#include "core/workspace/workspace.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;
using test::GitSandbox;
using test::ScopedEnv;

TEST(GitRepo, NotARepository) {
  test::TempDir t;
  ScopedEnv ceiling("GIT_CEILING_DIRECTORIES", t.path().parent_path().c_str());
  EXPECT_FALSE(GitRepo::open(t.path()));
}

TEST(GitRepo, FindsTheWorkTreeFromASubfolder) {
  GitSandbox g;
  fs::create_directories(g.repo() / "a/b");
  auto repo = GitRepo::open(g.repo() / "a/b");
  ASSERT_TRUE(repo);
  EXPECT_EQ(repo->workdir(), g.repo());
}

TEST(GitRepo, HonoursGitWorkTreeWithGitDir) {
  // libgit2 1.5 ignores GIT_WORK_TREE with GIT_REPOSITORY_OPEN_FROM_ENV.
  GitSandbox g;
  test::TempDir other;
  ScopedEnv dir("GIT_DIR", (g.repo() / ".git").c_str());
  ScopedEnv wt("GIT_WORK_TREE", other.path().c_str());
  auto repo = GitRepo::open(g.repo());
  ASSERT_TRUE(repo);
  EXPECT_EQ(repo->workdir(), other.path());
}

TEST(GitRepo, GitDirAloneMakesTheCurrentFolderTheWorkTree) {
  GitSandbox g;
  test::TempDir other;
  ScopedEnv dir("GIT_DIR", (g.repo() / ".git").c_str());
  auto repo = GitRepo::open(other.path());
  ASSERT_TRUE(repo);
  EXPECT_EQ(repo->workdir(), other.path());
}

TEST(GitRepo, ABareRepositoryWithGitDirHasNoWorkTree) {
  // git runs a received push's hooks in the bare repository with GIT_DIR=.
  test::TempDir t;
  test::must("git init -q --bare srv.git", t.path());
  ScopedEnv dir("GIT_DIR", ".");
  auto repo = GitRepo::open(t.path() / "srv.git");
  ASSERT_TRUE(repo);
  EXPECT_FALSE(repo->workdir());
}

TEST(GitRepo, ReadsObjectsInAPushsQuarantine) {
  // A pre-receive hook sees the pushed objects only through
  // GIT_OBJECT_DIRECTORY, with the repository's own as an alternate.
  GitSandbox g;
  const std::string old_id = test::must("echo held | git hash-object -w --stdin", g.repo()).substr(0, 40);
  const fs::path quarantine = g.repo() / ".git/objects/incoming-x";
  fs::create_directories(quarantine);
  const std::string objects = (g.repo() / ".git/objects").string();
  std::string new_id;
  {
    ScopedEnv q("GIT_OBJECT_DIRECTORY", quarantine.c_str());
    new_id = test::must("echo pushed | git hash-object -w --stdin", g.repo()).substr(0, 40);
  }
  ASSERT_FALSE(GitRepo::open(g.repo())->read_object(new_id));
  ScopedEnv q("GIT_OBJECT_DIRECTORY", quarantine.c_str());
  ScopedEnv alt("GIT_ALTERNATE_OBJECT_DIRECTORIES", ("\"" + objects + "\"").c_str());
  auto repo = GitRepo::open(g.repo());
  ASSERT_TRUE(repo);
  EXPECT_EQ(repo->read_object(new_id), "pushed\n");
  EXPECT_EQ(repo->read_object(old_id), "held\n");
}

TEST(GitRepo, OpensRepositoriesWithWorktreeConfig) {
  // libgit2 1.5 refuses unknown extensions unless they are declared.
  GitSandbox g;
  g.git("config core.repositoryformatversion 1");
  g.git("config extensions.worktreeConfig true");
  g.git("config --worktree jpblob.minSize 7");
  auto repo = GitRepo::open(g.repo());
  ASSERT_TRUE(repo);
  EXPECT_EQ(repo->config("jpblob.minSize"), "7");
}

TEST(GitRepo, AppliesGitDashCSettings) {
  // libgit2 ignores `git -c`; git passes it on in the environment. Run the
  // real thing: git runs a shell alias with the settings it was given.
  GitSandbox g;
  g.git("config jpblob.minSize 1");
  std::string params = test::must(
      "git -c jpblob.minSize=42 -c jpblob.smudge=refs "
      "-c alias.e='!printenv GIT_CONFIG_PARAMETERS' e",
      g.repo());
  while (!params.empty() && params.back() == '\n') params.pop_back();
  // git 2.39 writes 'jpblob.minSize'='42' 'alias.e'=''\!'printenv …'
  ASSERT_NE(params.find("jpblob."), std::string::npos) << params;
  ScopedEnv p("GIT_CONFIG_PARAMETERS", params.c_str());
  auto repo = GitRepo::open(g.repo());
  ASSERT_TRUE(repo);
  EXPECT_EQ(repo->config("jpblob.minSize"), "42");
  EXPECT_EQ(load_settings(&*repo).min_size, 42u);
  EXPECT_TRUE(load_settings(&*repo).smudge_refs_only);
  const auto all = command_line_config();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[2].second, "!printenv GIT_CONFIG_PARAMETERS");
}

TEST(GitRepo, ABareDashCKeyDoesNotHideTheSettingsAfterIt) {
  // `git -c key` (no value) is written 'key'= with nothing after it; the
  // settings that follow must still be read. Asked of the real git.
  GitSandbox g;
  std::string params = test::must(
      "git -c jpblob.fsync -c jpblob.empty= -c jpblob.minSize=42 "
      "-c alias.e='!printenv GIT_CONFIG_PARAMETERS' e",
      g.repo());
  while (!params.empty() && params.back() == '\n') params.pop_back();
  ScopedEnv p("GIT_CONFIG_PARAMETERS", params.c_str());
  const auto all = command_line_config();
  ASSERT_EQ(all.size(), 4u) << params;
  EXPECT_EQ(all[0], (std::pair<std::string, std::string>{"jpblob.fsync", "true"}));
  EXPECT_EQ(all[1], (std::pair<std::string, std::string>{"jpblob.empty", ""}));
  EXPECT_EQ(load_settings(nullptr).min_size, 42u);
}

TEST(GitRepo, ParsesBothForms) {
  {
    ScopedEnv p("GIT_CONFIG_PARAMETERS", "'jpblob.minsize=5' 'a.b'='it'\\''s'");
    auto c = command_line_config();
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0], (std::pair<std::string, std::string>{"jpblob.minsize", "5"}));
    EXPECT_EQ(c[1], (std::pair<std::string, std::string>{"a.b", "it's"}));
  }
  {
    ScopedEnv count("GIT_CONFIG_COUNT", "1");
    ScopedEnv k("GIT_CONFIG_KEY_0", "jpblob.minSize");
    ScopedEnv v("GIT_CONFIG_VALUE_0", "9");
    EXPECT_EQ(load_settings(nullptr).min_size, 9u);
  }
}

TEST(GitRepo, BadSettingsAreNamed) {
  GitSandbox g;
  g.git("config jpblob.compressionLevel 12");
  auto repo = GitRepo::open(g.repo());
  try {
    load_settings(&*repo);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("jpblob.compressionLevel"), std::string::npos);
  }
  g.git("config jpblob.compressionLevel 1");
  g.git("config jpblob.minSize 4k");
  auto reopened = GitRepo::open(g.repo());
  EXPECT_EQ(load_settings(&*reopened).min_size, 4096u);
}

// A repository whose store holds the blob "hello", staged, and a
// conversation cleaned to reference it; smudged() restores it afresh.
struct StagedHello {
  GitSandbox g;
  const std::string original = R"([{"type":"tool_call_response","content":"aGVsbG8="}])";
  std::string cleaned;
  fs::path blob;
  std::string rel;  // the blob's path in the repository
  StagedHello() {
    const auto ws = Workspace::open(g.repo());
    clean(original, ws.new_blobs(), {}, [&](std::string_view s) { cleaned.append(s); });
    blob = ws.store().path_of(Sha256::of("hello"));
    rel = fs::relative(blob, g.repo()).string();
    g.git("add .jp");
  }
  // The work-tree file and its kept copy (core/lean/kept_copies): git alone holds it.
  void remove_blob() const {
    fs::remove(blob);
    ASSERT_TRUE(fs::remove(g.repo() / ".git/jpblob/kept" / blob.filename()));
  }
  std::string smudged() const {
    std::string out;
    smudge(cleaned, Workspace::open(g.repo()).blobs(), {}, [&](std::string_view s) { out.append(s); });
    return out;
  }
};

// Commits a conversation's blob, then deletes the file from the work tree:
// smudge must find it in the index, and failing that in HEAD.
// blob_id_at keeps the trees it walked, by tree id: the
// answers must be the tree's own, a moving name ("HEAD") is followed,
// and a folder that is a file or absent gives nothing.
TEST(GitRepo, BlobIdAtKeepsTreesYetFollowsAMovingName) {
  GitSandbox g;
  fs::create_directories(g.repo() / "a/b");
  std::ofstream(g.repo() / "a/b/x") << "one";
  std::ofstream(g.repo() / "a/y") << "why";
  g.git("add -A");
  g.git("commit -qm one");
  const std::string first = g.git("rev-parse HEAD").substr(0, 40);
  const std::string x1 = g.git("rev-parse HEAD:a/b/x").substr(0, 40);
  auto repo = GitRepo::open(g.repo());
  ASSERT_TRUE(repo);
  EXPECT_EQ(repo->blob_id_at(first, "a/b/x"), x1);
  EXPECT_EQ(repo->blob_id_at("HEAD", "a/b/x"), x1);
  std::ofstream(g.repo() / "a/b/x") << "two";
  g.git("commit -qam two");
  const std::string second = g.git("rev-parse HEAD").substr(0, 40);
  const std::string x2 = g.git("rev-parse HEAD:a/b/x").substr(0, 40);
  ASSERT_NE(x1, x2);
  EXPECT_EQ(repo->blob_id_at("HEAD", "a/b/x"), x2);
  EXPECT_EQ(repo->blob_id_at(second, "a/b/x"), x2);
  EXPECT_EQ(repo->blob_id_at(first, "a/b/x"), x1);
  const std::string tree = g.git("rev-parse HEAD^{tree}").substr(0, 40);
  EXPECT_EQ(repo->blob_id_at(tree, "a/b/x"), x2);
  EXPECT_EQ(repo->blob_id_at(first, "a/y"), g.git("rev-parse HEAD:a/y").substr(0, 40));
  EXPECT_FALSE(repo->blob_id_at(first, "a/b"));        // a folder, not a blob
  EXPECT_FALSE(repo->blob_id_at(first, "a/y/z"));      // below a file
  EXPECT_FALSE(repo->blob_id_at(first, "a/c/x"));      // no such folder
  EXPECT_FALSE(repo->blob_id_at(first, "a/c/x"));      // asked again, from what was kept
  EXPECT_FALSE(repo->blob_id_at(std::string(40, 'e'), "a/b/x"));  // no such commit
}

// gc's reflog pass: every blob below some folders in many commits, as `git
// ls-tree -r` lists them, each folder walked once however many commits hold
// it unchanged; a folder left out is not walked, and a tree libgit2 cannot
// read makes the whole answer nullopt (git is asked then).
TEST(GitRepo, BlobsBelowListWhatLsTreeListsInEveryCommit) {
  GitSandbox g;
  for (const char* f : {"r/c1/events.json", "r/c2/events.json", "r/store/aa/x", "r/link-target", "other/o"}) {
    fs::create_directories((g.repo() / f).parent_path());
    std::ofstream(g.repo() / f) << f;
  }
  fs::create_symlink("link-target", g.repo() / "r/c1/link");
  g.git("add -A");
  g.git("commit -qm one");
  const std::string first = g.git("rev-parse HEAD").substr(0, 40);
  std::ofstream(g.repo() / "r/c2/events.json") << "changed";
  fs::create_directories(g.repo() / "r/c3");
  std::ofstream(g.repo() / "r/c3/events.json") << "new";
  g.git("add -A");
  g.git("commit -qm two");
  const std::string second = g.git("rev-parse HEAD").substr(0, 40);
  auto listed = [&](const std::string& commit) {
    std::set<std::string> out;
    std::istringstream in(g.git("ls-tree -r " + commit + " -- r"));
    for (std::string line; std::getline(in, line);) {
      // "<mode> blob <id>\t<path>"
      const auto tab = line.find('\t');
      std::istringstream fields(line.substr(0, tab));
      std::string mode, type, id;
      fields >> mode >> type >> id;
      if (line.substr(tab + 1).starts_with("r/store/")) continue;
      out.insert(mode + " " + id + " " + line.substr(tab + 1));
    }
    return out;
  };
  std::set<std::string> want = listed(first);
  for (const auto& e : listed(second)) want.insert(e);
  auto repo = GitRepo::open(g.repo());
  ASSERT_TRUE(repo);
  const auto blobs = repo->blobs_below({first, second}, {"r"}, {"r/store"});
  ASSERT_TRUE(blobs);
  std::set<std::string> got;
  std::size_t c1 = 0;
  for (const auto& b : *blobs) {
    got.insert(b.mode + " " + b.id + " " + b.path);  // a changed folder's files come again
    c1 += b.path == "r/c1/events.json";
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(c1, 1u) << "the unchanged folder was walked again";
  EXPECT_FALSE(repo->blobs_below({std::string(40, 'e')}, {"r"}));
  // A tree missing from the objects (a partial clone's): nullopt. The
  // objects of a fresh repository are loose: one file each.
  const std::string c3 = g.git("rev-parse HEAD:r/c3").substr(0, 40);
  const fs::path object = g.repo() / ".git/objects" / c3.substr(0, 2) / c3.substr(2);
  ASSERT_TRUE(fs::exists(object));
  fs::remove(object);
  auto fresh = GitRepo::open(g.repo());
  ASSERT_TRUE(fresh);
  EXPECT_FALSE(fresh->blobs_below({second}, {"r"}, {"r/store"}));
  EXPECT_TRUE(fresh->blobs_below({first}, {"r"}, {"r/store"})) << "the first commit lacks nothing";
}

// git 2.39's `clone --filter` marks the remote (remote.<name>.promisor)
// and sets no extensions.partialClone; older gits set that instead.
TEST(GitRepo, FindsThePromisorRemote) {
  GitSandbox g;
  EXPECT_FALSE(GitRepo::open(g.repo())->promisor_remote());
  g.git("config remote.origin.promisor false");
  EXPECT_FALSE(GitRepo::open(g.repo())->promisor_remote());
  g.git("config remote.my.server.promisor true");
  EXPECT_EQ(GitRepo::open(g.repo())->promisor_remote(), "my.server");
  g.git("config extensions.partialClone other");
  EXPECT_EQ(GitRepo::open(g.repo())->promisor_remote(), "other");
}

TEST(GitRepo, SmudgeFallsBackToTheIndexThenHead) {
  StagedHello h;
  h.remove_blob();
  EXPECT_EQ(h.smudged(), h.original);  // from the index
  h.g.git("commit -qm c");
  h.g.git("rm -q --cached " + h.rel);
  EXPECT_EQ(h.smudged(), h.original);  // from HEAD
  h.g.git("commit -qm gone");
  EXPECT_EQ(h.smudged(), h.original);  // from the commit that still holds it
  const std::string nowhere =
      R"([{"type":"tool_call_response","content":{"$blob":")" + Sha256::of("never stored").hex() +
      R"(","size":12,"encoding":"text"}}])";
  EXPECT_THROW(smudge(nowhere, Workspace::open(h.g.repo()).blobs(), {}, [](std::string_view) {}), Error);
}

// GIT_INDEX_FILE is the index git means (git commit -a and <paths> use
// another file).
TEST(GitRepo, SmudgeReadsTheIndexGitNames) {
  StagedHello h;
  fs::copy_file(h.g.repo() / ".git/index", h.g.repo() / ".git/other-index");
  h.g.git("rm -q --cached " + h.rel);
  h.remove_blob();
  EXPECT_THROW(h.smudged(), Error);  // in no commit, not in this index
  ScopedEnv index("GIT_INDEX_FILE", (h.g.repo() / ".git/other-index").c_str());
  EXPECT_EQ(h.smudged(), h.original);
}

// libgit2 1.5 reads no split index (core.splitIndex: the `link`
// extension); git reads it for index_entries and read_staged.
TEST(GitRepo, ASplitIndexIsReadThroughGit) {
  StagedHello h;
  h.g.git("update-index --split-index");
  ASSERT_TRUE(fs::exists(h.g.repo() / ".git/index"));
  bool split = false;
  for (const auto& e : fs::directory_iterator(h.g.repo() / ".git"))
    split |= e.path().filename().string().starts_with("sharedindex.");
  ASSERT_TRUE(split) << "the setup made no split index";
  const auto repo = GitRepo::open(h.g.repo());
  ASSERT_TRUE(repo);
  EXPECT_THROW(repo->index(), Error) << "libgit2 reads split indexes now: the fallback can go";
  const auto entries = repo->index_entries(".jp/blobs", GitRepo::Entries::All);
  ASSERT_FALSE(entries.empty());
  for (const IndexEntry& e : entries) EXPECT_TRUE(e.path.starts_with(".jp/blobs/")) << e.path;
  EXPECT_EQ(repo->read_staged(h.rel), std::optional<std::string>(test::read_text(h.blob))) << "read_staged";
  h.remove_blob();
  EXPECT_EQ(h.smudged(), h.original);  // from the index, through git
}

TEST(GitRepo, CorruptBlobInGitIsAnErrorNotData) {
  GitSandbox g;
  const Digest d = Sha256::of("hello");
  const std::string rel = ".jp/blobs/" + blob_relative_path(d);
  test::write_text(g.repo() / rel, gzip_compress("HELLO"));  // wrong content for the name
  g.git("add .jp");
  fs::remove(g.repo() / rel);
  auto ws = Workspace::open(g.repo());
  const std::string cleaned = "[{\"type\":\"tool_call_response\",\"content\":{\"$blob\":\"" +
                              d.hex() + "\",\"size\":5,\"encoding\":\"base64\"}}]";
  try {
    smudge(cleaned, ws.blobs(), {}, [](std::string_view) {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("(index) is corrupt"), std::string::npos) << e.what();
  }
}

// gc and verify read every staged conversation: a loose one is inflated
// by libdeflate (read_loose_blob), anything else by libgit2. Both must
// give the same bytes, and whatever the fast path cannot vouch for goes
// to libgit2, which reads it or says what is wrong.
TEST(GitRepo, LooseBlobsReadAsLibgit2ReadsThem) {
  GitSandbox g;
  const fs::path objects = g.repo() / ".git/objects";
  std::string big;
  for (int i = 0; big.size() < 300000; ++i) big += "line " + std::to_string(i * 7919 % 100003) + "\n";
  std::vector<std::pair<std::string, std::string>> written;  // id, content
  for (const auto& [level, text] : std::vector<std::pair<int, std::string>>{
           {1, ""}, {1, "x"}, {0, big}, {9, big + "!"}, {1, std::string(1 << 20, '\0')}}) {
    test::write_text(g.repo() / "f", text);
    const std::string id = g.git("-c core.looseCompression=" + std::to_string(level) + " hash-object -w f").substr(0, 40);
    written.emplace_back(id, text);
  }
  const auto repo = GitRepo::open(g.repo());
  ASSERT_TRUE(repo);
  for (const auto& [id, text] : written) {
    const auto loose = read_loose_blob(objects, id);
    ASSERT_TRUE(loose) << id;
    EXPECT_EQ(*loose, text);
    EXPECT_EQ(repo->read_object(id), text);
  }
  // Not a blob (a tree), absent, and packed: none is the fast path's.
  test::write_text(g.repo() / "f", "tracked");
  g.git("add f");
  const std::string tree = g.git("write-tree").substr(0, 40);
  EXPECT_FALSE(read_loose_blob(objects, tree));
  EXPECT_FALSE(read_loose_blob(objects, std::string(40, '0')));
  const std::string packed = g.git("rev-parse :f").substr(0, 40);
  g.git("commit -qm c && git repack -adq && git prune-packed");
  ASSERT_FALSE(fs::exists(objects / packed.substr(0, 2) / packed.substr(2))) << "not packed";
  EXPECT_FALSE(read_loose_blob(objects, packed));
  EXPECT_EQ(repo->read_object(packed), "tracked");
  // A loose object cut short, one with a byte flipped, one whose header
  // lies about its size: an error naming the object and its file. libgit2
  // 1.5 never returns from reading the first (the loop in its loose
  // backend), so it is never asked.
  test::write_text(g.repo() / "f", big + "corrupt");
  const std::string id = g.git("hash-object -w f").substr(0, 40);
  const fs::path file = objects / id.substr(0, 2) / id.substr(2);
  const std::string bytes = test::read_text(file);
  fs::permissions(file, fs::perms::owner_write, fs::perm_options::add);
  for (const std::string& bad : {bytes.substr(0, bytes.size() / 2),
                                 bytes.substr(0, 200) + char(bytes[200] ^ 0x10) + bytes.substr(201),
                                 zlib_compress(std::string("blob 5\0hello!", 13), 1),
                                 zlib_compress(std::string("blob 05\0hello", 13), 1),
                                 zlib_compress(std::string("blobx 5\0hello", 13), 1)}) {
    test::write_text(file, bad);
    for (const std::string& msg : {test::error_of([&] { read_loose_blob(objects, id); }),
                                   test::error_of([&] { repo->read_object(id); })}) {
      EXPECT_NE(msg.find(id), std::string::npos) << msg;
      EXPECT_NE(msg.find("is corrupt"), std::string::npos) << msg;
    }
  }
}

// Loose objects git reads elsewhere than the repository's own folder (a
// clone made with --shared or --reference reads its origin's through
// info/alternates) or through a link: git-jpblob reads those too, so that a
// truncated one is an error and never libgit2's endless loop.
TEST(GitRepo, LooseBlobsInAlternatesAndBehindLinksAreReadTheSameWay) {
  GitSandbox origin, shared;
  test::write_text(origin.repo() / "f", std::string(100000, 'o') + "rigin");
  const std::string id = origin.git("hash-object -w f").substr(0, 40);
  const fs::path own = origin.repo() / ".git/objects" / id.substr(0, 2) / id.substr(2);
  const std::string bytes = test::read_text(own);
  // Two steps of alternates, the second relative to the first's folder.
  GitSandbox middle;
  test::write_text(middle.repo() / ".git/objects/info/alternates",
                   "# the origin\n" + fs::relative(origin.repo() / ".git/objects", middle.repo() / ".git/objects").string() + "\n");
  test::write_text(shared.repo() / ".git/objects/info/alternates", (middle.repo() / ".git/objects").string() + "\n");
  auto repo = GitRepo::open(shared.repo());
  ASSERT_TRUE(repo);
  EXPECT_EQ(repo->read_object(id), std::string(100000, 'o') + "rigin");
  fs::permissions(own, fs::perms::owner_write, fs::perm_options::add);
  test::write_text(own, bytes.substr(0, bytes.size() / 2));
  std::string msg = test::error_of([&] { repo->read_object(id); });
  EXPECT_NE(msg.find("is corrupt"), std::string::npos) << msg;
  EXPECT_NE(msg.find(own.string()), std::string::npos) << msg;
  // A link in the repository's own folder to a truncated file.
  test::write_text(origin.repo() / "cut", bytes.substr(0, bytes.size() / 2));
  fs::create_directories(shared.repo() / ".git/objects" / id.substr(0, 2));
  fs::create_symlink(origin.repo() / "cut", shared.repo() / ".git/objects" / id.substr(0, 2) / id.substr(2));
  msg = test::error_of([&] { GitRepo::open(shared.repo())->read_object(id); });
  EXPECT_NE(msg.find("is corrupt"), std::string::npos) << msg;
}

// Trees and commits are read by libgit2, through git-jpblob's own reader
// of loose objects (install_loose_reader): one cut short is an error
// naming its file, where libgit2 1.5's own reader never returns (verify
// --history walks every commit's trees). Sound ones read as before.
TEST(GitRepo, ATruncatedLooseTreeOrCommitIsAnErrorNotAHang) {
  GitSandbox g;
  test::write_text(g.repo() / "dir/f", "content");
  g.git("add dir/f && git commit -qm c");
  const std::string tree = g.git("rev-parse HEAD:dir").substr(0, 40);
  const std::string commit = g.git("rev-parse HEAD").substr(0, 40);
  EXPECT_EQ(GitRepo::open(g.repo())->read_head("dir/f"), "content");
  for (const std::string& id : {tree, commit}) {
    SCOPED_TRACE(id == tree ? "tree" : "commit");
    const fs::path file = g.repo() / ".git/objects" / id.substr(0, 2) / id.substr(2);
    const std::string bytes = test::read_text(file);
    fs::permissions(file, fs::perms::owner_write, fs::perm_options::add);
    test::write_text(file, bytes.substr(0, bytes.size() - 6));
    const std::string msg = test::error_of([&] { GitRepo::open(g.repo())->read_head("dir/f"); });
    EXPECT_NE(msg.find(id), std::string::npos) << msg;
    EXPECT_NE(msg.find("is corrupt"), std::string::npos) << msg;
    // A link to /dev/zero in its place: not a file, never read to the end.
    fs::remove(file);
    fs::create_symlink("/dev/zero", file);
    const std::string zero = test::error_of([&] { GitRepo::open(g.repo())->read_head("dir/f"); });
    EXPECT_NE(zero.find("is corrupt (it is not a file)"), std::string::npos) << zero;
    fs::remove(file);
    test::write_text(file, bytes);
  }
  EXPECT_EQ(GitRepo::open(g.repo())->read_head("dir/f"), "content");
}

// git reads packs before loose files: an empty loose file a crash left
// beside a packed object (a blob, a tree, a commit) does not stand in the
// packed copy's way, for git-jpblob's reads as for git's.
TEST(GitRepo, ACorruptLooseCopyOfAPackedObjectYieldsToThePack) {
  GitSandbox g;
  test::write_text(g.repo() / "dir/f", "packed content");
  g.git("add dir/f && git commit -qm c && git repack -adq && git prune-packed");
  const std::vector<std::string> ids = {g.git("rev-parse HEAD:dir/f").substr(0, 40),
                                        g.git("rev-parse HEAD:dir").substr(0, 40),
                                        g.git("rev-parse HEAD:").substr(0, 40), g.git("rev-parse HEAD").substr(0, 40)};
  for (const std::string& id : ids) {
    const fs::path file = g.repo() / ".git/objects" / id.substr(0, 2) / id.substr(2);
    ASSERT_FALSE(fs::exists(file)) << "not packed";
    fs::create_directories(file.parent_path());
    test::write_text(file, "");
  }
  EXPECT_EQ(g.git("cat-file -p HEAD:dir/f"), "packed content") << "git itself reads the pack";
  const auto repo = GitRepo::open(g.repo());
  EXPECT_EQ(repo->read_object(ids[0]), "packed content");
  EXPECT_EQ(repo->read_head("dir/f"), "packed content");
  EXPECT_EQ(repo->blob_id_at("HEAD", "dir/f"), ids[0]);
}

// An object file that holds another object's bytes (a copy over it, a
// disk that returned the wrong sector) is read as what it holds, as git
// reads it, except under ObjectIdChecks (verify), which names it, loose
// or packed, as `git fsck` would.
TEST(GitRepo, UnderIdChecksAnObjectHoldingAnothersBytesIsNamed) {
  GitSandbox g;
  const fs::path objects = g.repo() / ".git/objects";
  test::write_text(g.repo() / "a", "the conversation that was committed\n");
  test::write_text(g.repo() / "b", "another conversation altogether\n");
  const std::string a = g.git("hash-object -w a").substr(0, 40);
  const std::string b = g.git("hash-object -w b").substr(0, 40);
  const fs::path file_a = objects / a.substr(0, 2) / a.substr(2);
  fs::permissions(file_a, fs::perms::owner_write, fs::perm_options::add);
  fs::copy_file(objects / b.substr(0, 2) / b.substr(2), file_a, fs::copy_options::overwrite_existing);
  const auto repo = GitRepo::open(g.repo());
  ASSERT_TRUE(repo);
  EXPECT_EQ(repo->read_object(a), "another conversation altogether\n");
  {
    const ObjectIdChecks checks;
    const std::string msg = test::error_of([&] { repo->read_object(a); });
    EXPECT_NE(msg.find(a), std::string::npos) << msg;
    EXPECT_NE(msg.find("other bytes than its name says: they hash to " + b), std::string::npos) << msg;
    EXPECT_EQ(repo->read_object(b), "another conversation altogether\n");
  }
  EXPECT_EQ(repo->read_object(a), "another conversation altogether\n") << "the checks outlived their holder";
  // Packed: the pack's entry for a holding b's bytes (libgit2's strict
  // hash verification).
  g.git("add a && git commit -qm a && git repack -adq && git prune-packed");
  ASSERT_FALSE(fs::exists(file_a)) << "not packed";
  const auto packed = GitRepo::open(g.repo());
  {
    const ObjectIdChecks checks;
    const std::string msg = test::error_of([&] { packed->read_object(a); });
    EXPECT_FALSE(msg.empty()) << "a packed object holding another's bytes was read under the checks";
  }
}

// A gap of libgit2 1.5 worked around: it refuses a repository whose
// objects are named by SHA-256 (extensions.objectFormat). GitRepo::open says
// so with its own error, for the filter and hooks to step aside, and a
// SHA-1 repository opens as ever.
TEST(GitRepo, ASha256RepositoryIsRefusedWithItsOwnError) {
  test::FormatRepo sha256("sha256");
  try {
    GitRepo::open(sha256.dir.path());
    FAIL() << "libgit2 opened a SHA-256 repository: the workaround may go";
  } catch (const UnsupportedRepository& e) {
    EXPECT_NE(std::string(e.what()).find("SHA-256"), std::string::npos) << e.what();
  }
  test::FormatRepo sha1("sha1");
  EXPECT_TRUE(GitRepo::open(sha1.dir.path()).has_value());
}

}  // namespace
}  // namespace jpblob
