#include "core/maintenance/purge_list.hpp"

#include <gtest/gtest.h>

#include "core/base/error.hpp"
#include "core/store/blob_store.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

Digest digest_of(const std::string& text) { return Sha256::of(text); }

PurgeTarget folder_target(const std::string& folder) { return PurgeTarget{{}, {folder}}; }

const std::string kSecret = ".jp/conversations/17758406187-secret/events.json";
const std::string kOther = ".jp/conversations/1-other/events.json";

TEST(PurgeList, SharedBlobsStayAndTheSecretsGo) {
  const Digest shared = digest_of("cargo check output"), secret = digest_of("AWS_SECRET=x"),
               later = digest_of("second secret"), others = digest_of("other's own");
  const std::vector<DocumentBlobs> versions = {
      {{kOther}, {shared, others}},
      {{kSecret}, {shared, secret}},
      {{kSecret}, {shared, secret, later}},  // a later version of it
  };
  const BlobSplit split = split_blobs(versions, folder_target(".jp/conversations/17758406187-secret"));
  std::vector<Digest> want = {secret, later};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(split.purge, want);
  ASSERT_EQ(split.shared.size(), 1u);
  EXPECT_EQ(split.shared[0].first, shared);
  EXPECT_EQ(split.shared[0].second, kOther);
}

TEST(PurgeList, AnyVersionOfAnotherDocumentKeepsABlob) {
  const Digest old = digest_of("read long ago");
  // The other conversation needed it in an old commit only, and a copy of
  // the secret conversation under another path holds it too.
  const std::vector<DocumentBlobs> versions = {
      {{kOther}, {old}},
      {{kOther}, {}},
      {{kSecret, ".jp/conversations/2-copy/events.json"}, {digest_of("copied")}},
      {{kSecret}, {old}},
  };
  const BlobSplit split = split_blobs(versions, folder_target(".jp/conversations/17758406187-secret"));
  EXPECT_TRUE(split.purge.empty());
  EXPECT_EQ(split.shared.size(), 2u);
}

TEST(PurgeList, AFolderHoldsWhatIsBelowItOnly) {
  const PurgeTarget t{{".jp/sessions/a.jsonl"}, {".jp/conversations/1-a"}};
  EXPECT_TRUE(t.holds(".jp/conversations/1-a/events.json"));
  EXPECT_TRUE(t.holds(".jp/conversations/1-a/metadata.json"));
  EXPECT_FALSE(t.holds(".jp/conversations/1-ab/events.json"));
  EXPECT_FALSE(t.holds(".jp/conversations/1-a"));
  EXPECT_TRUE(t.holds(".jp/sessions/a.jsonl"));
  EXPECT_FALSE(t.holds(".jp/sessions/a.jsonl.bak"));
}

TEST(PurgeList, ResolvesEveryFolderAConversationsIdHad) {
  const std::unordered_set<std::string> known = {
      ".jp/conversations/17758406187-secret/events.json", ".jp/conversations/17758406187-secret/metadata.json",
      ".jp/conversations/.archive/17758406187-renamed/events.json", ".jp/conversations/1775-other/events.json",
      ".jp/sessions/2026_abc.jsonl", ".jp/sessions/2026_abc/0.bash.log", ".jp/sessions/2026_def.jsonl"};
  const fs::path top = "/repo";
  const std::vector<std::string> both = {".jp/conversations/.archive/17758406187-renamed",
                                         ".jp/conversations/17758406187-secret"};
  EXPECT_EQ(resolve_purge_target({"17758406187"}, known, top, top).folders, both);
  EXPECT_EQ(resolve_purge_target({"jp-c17758406187"}, known, top, top).folders, both);
  EXPECT_EQ(resolve_purge_target({".jp/conversations/17758406187-secret/"}, known, top, top).folders, both);
  EXPECT_EQ(resolve_purge_target({"17758406187-secret/events.json"}, known, top, top / ".jp/conversations").folders,
            both);
  EXPECT_EQ(resolve_purge_target({"1775"}, known, top, top).folders,
            std::vector<std::string>{".jp/conversations/1775-other"});
  const PurgeTarget session = resolve_purge_target({".jp/sessions/2026_abc.jsonl"}, known, top, top);
  EXPECT_EQ(session.files, std::vector<std::string>{".jp/sessions/2026_abc.jsonl"});
  EXPECT_EQ(session.folders, std::vector<std::string>{".jp/sessions/2026_abc"});
  EXPECT_TRUE(resolve_purge_target({".jp/sessions/2026_def.jsonl"}, known, top, top).folders.empty());
  for (const char* unknown : {"42", "jp-c42", "nope", ".jp/sessions/none.jsonl", "../elsewhere/17758406187-secret"}) {
    try {
      resolve_purge_target({"17758406187", unknown}, known, top, top);
      ADD_FAILURE() << unknown << " resolved";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Failure) << unknown;  // not found: fatal, 128, as git
      EXPECT_NE(std::string(e.what()).find(std::string(unknown).substr(std::string(unknown).starts_with("jp-c") ? 4 : 0)),
                std::string::npos)
          << e.what();
    }
  }
}

// Each line read as git-filter-repo reads a --paths-from-file line
// (FilteringOptions.get_paths_from_file and filename_matches, 2.38), by
// Python: the paths it matches among `candidates`, one a line.
std::string filter_repo_matches(const std::string& line, const std::vector<std::string>& candidates) {
  std::string input = line + "\n";
  for (const auto& c : candidates) input += c + '\0';
  const std::string script = R"PY(
import re, sys
data = sys.stdin.buffer.read()
line, rest = data.split(b"\n", 1)
line = line.rstrip(b"\r\n")
assert line and not line.startswith(b"#") and b"==>" not in line, line
if line.startswith(b"regex:"):
    r = re.compile(line[6:]); match = lambda p: r.search(p) is not None
else:
    e = line[8:] if line.startswith(b"literal:") else line
    assert not e.startswith(b"glob:"), line
    match = lambda p: p.startswith(e) and (e.endswith(b"/") or len(p) == len(e) or p[len(e):len(e)+1] == b"/")
for p in rest.split(b"\0")[:-1]:
    if match(p): sys.stdout.buffer.write(p.replace(b"\n", b"\\n") + b"\n")
)PY";
  const auto r = test::run("python3 -c " + test::shell_quote(script), fs::temp_directory_path(), input);
  EXPECT_EQ(r.status, 0) << r.err;
  return r.out;
}

TEST(PurgeList, FilterRepoLinesNameExactlyTheirPath) {
  EXPECT_EQ(filter_repo_line(".jp/conversations/1-a/"), ".jp/conversations/1-a/");
  EXPECT_EQ(filter_repo_line("#1-a/"), "literal:#1-a/");
  EXPECT_EQ(filter_repo_line("glob:x"), "literal:glob:x");
  const std::vector<std::string> hostile = {".jp/conversations/1-a==>b/", ".jp/conversations/1-a\nb/",
                                            ".jp/conversations/1-(a).*+?[x]{2}$^|\\ é\r/", ".jp/sessions/s==>.jsonl"};
  for (const std::string& path : hostile) {
    const std::string line = filter_repo_line(path);
    EXPECT_TRUE(line.starts_with("regex:")) << line;
    EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    const bool folder = path.ends_with('/');
    const std::string inside = folder ? path + "events.json" : path;
    std::string shown = inside;
    for (std::size_t at; (at = shown.find('\n')) != std::string::npos;) shown.replace(at, 1, "\\n");
    EXPECT_EQ(filter_repo_matches(line, {inside, path.substr(0, path.size() - 1) + "x/events.json", "z" + inside}),
              shown + "\n")
        << line;
  }
}

// A repository whose history holds both conversations in the committed
// form (the blob files themselves do not matter to the list).
TEST(PurgeList, ReadsEveryRefTheIndexAndTheWorkTree) {
  test::GitSandbox box;
  const fs::path repo = box.repo();
  auto conversation = [&](const std::string& folder, const std::vector<std::string>& texts) {
    std::string events = "[";
    for (const std::string& t : texts)
      events += std::string(events.size() > 1 ? "," : "") + R"({"type":"tool_call_response","content":{"$blob":")" +
                digest_of(t).hex() + R"(","size":)" + std::to_string(t.size()) + "}}";
    test::write_text(repo / ".jp/conversations" / folder / "events.json", events + "]");
  };
  conversation("1-other", {"shared", "other's old"});
  conversation("17758406187-secret", {"shared", "secret", "other's old", "in the work tree"});
  box.git("add -A && git commit -qm one");
  conversation("1-other", {"shared"});
  box.git("add -A && git commit -qm two");
  box.git("checkout -qb side");
  box.git("mv .jp/conversations/17758406187-secret .jp/conversations/17758406187-renamed");
  conversation("17758406187-renamed", {"secret", "on the side"});
  box.git("add -A && git commit -qm side && git checkout -q main");
  box.git("rm -rq .jp/conversations/17758406187-secret && git commit -qm gone");
  // Not committed: a new conversation in the work tree needs one of the
  // secret's blobs.
  conversation("2-new", {"in the work tree"});
  test::ScopedEnv ceiling("GIT_CEILING_DIRECTORIES", repo.parent_path().c_str());
  const Workspace ws = Workspace::open(repo);
  const PurgeList list = run_purge_list(ws, {"17758406187"}, repo, {});
  EXPECT_EQ(list.folders, (std::vector<std::string>{".jp/conversations/17758406187-renamed/",
                                                    ".jp/conversations/17758406187-secret/"}));
  std::vector<std::string> want = {tracked_blob_path(digest_of("secret")), tracked_blob_path(digest_of("on the side"))};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(list.blobs, want);
  EXPECT_EQ(list.shared.size(), 3u);  // "shared", "other's old" (an old commit), "in the work tree"
  EXPECT_EQ(list.commits, 4u);
  EXPECT_EQ(list.lines().size(), 4u);
  EXPECT_THROW(run_purge_list(ws, {"17758406188"}, repo, {}), Error);
}

}  // namespace
}  // namespace jpblob
