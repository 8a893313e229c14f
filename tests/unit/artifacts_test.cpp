#include "core/artifacts/artifacts.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <set>
#include <thread>

#include "core/base/error.hpp"
#include "core/artifacts/internal_url.hpp"
#include "core/artifacts/output_spill.hpp"
#include "core/git/subprocess.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::error_of;

// ---------------------------------------------------------------- folders

TEST(Artifacts, FolderIsTheSessionFileWithoutJsonl) {
  EXPECT_EQ(artifacts_dir_for("/s/2026-11-22T10-00_abc.jsonl"), fs::path("/s/2026-11-22T10-00_abc"));
  EXPECT_EQ(artifacts_dir_for("rel/x.jsonl"), fs::path("rel/x"));
  EXPECT_THROW(artifacts_dir_for("/s/x.json"), Error);
  EXPECT_THROW(artifacts_dir_for("/s/.jsonl"), Error);
  EXPECT_THROW(artifacts_dir_for(".git/config"), Error);
}

TEST(Artifacts, IdsAndNamesAreValidated) {
  for (const char* ok : {"0", "7", "123456789012345678"}) EXPECT_TRUE(is_valid_artifact_id(ok)) << ok;
  for (const char* bad : {"", "-1", "1.5", "../../x", "1/../x", "1234567890123456789", "1 ", "x"})
    EXPECT_FALSE(is_valid_artifact_id(bad)) << bad;
  // Numbered (git-jpblob's, older oh-my-pi's) and name-first (oh-my-pi's
  // since 2026: a repeated name gets -2, -3…) alike.
  for (const char* ok : {"0-Parent", "0-Parent.1-Child", "12-a_b-c.0-x.3-y", "Anna", "Anna-2", "Parent.Child",
                         "Anna.0-Bob", "__advisor-2", "a-b"})
    EXPECT_TRUE(is_valid_agent_id(ok)) << ok;
  for (const char* bad : {"", "..", "../../etc", "0-a..1-b", "0-a.", ".0-a", "0-a/1-b", "0-a b", "0-a\n",
                          "Anna.", ".Anna", "Anna..Bob", "Anna/Bob", "Anna%2F", "An na", "Anna:2"})
    EXPECT_FALSE(is_valid_agent_id(bad)) << bad;
  for (const char* bad : {"", "a.b", "a/b", "..", std::string(65, 'a').c_str()})
    EXPECT_FALSE(is_valid_name(bad)) << bad;
}

// ------------------------------------------------------------- allocation

TEST(Artifacts, NumbersStartAtZeroAndResumeAfterTheHighest) {
  TempDir t;
  const fs::path dir = t / "sess";
  {
    ArtifactAllocator a(dir);  // the folder does not exist yet
    EXPECT_EQ(a.allocate("bash").id, "0");
    EXPECT_EQ(a.allocate("python").id, "1");
    EXPECT_TRUE(fs::is_regular_file(dir / "0.bash.log"));
    EXPECT_TRUE(fs::is_regular_file(dir / "1.python.log"));
  }
  // A resumed session: 7 exists, and files that are not artifacts are ignored.
  test::write_text(dir / "7.bash.log", "old output");
  test::write_text(dir / "99-agent.md", "x");
  test::write_text(dir / "notes.txt", "x");
  ArtifactAllocator resumed(dir);
  const AllocatedFile f = resumed.allocate("bash");
  EXPECT_EQ(f.id, "8");
  EXPECT_EQ(f.path, dir / "8.bash.log");
  EXPECT_EQ(test::read_text(dir / "7.bash.log"), "old output") << "never overwritten";
  EXPECT_THROW(resumed.allocate("../x"), Error);
  EXPECT_THROW(resumed.allocate(""), Error);
}

TEST(Artifacts, ConcurrentAllocatorsNeverShareANumber) {
  // Separate allocators share nothing but the folder, as two processes do;
  // each uses its own tool name, so only the claim check keeps numbers apart.
  TempDir t;
  const fs::path dir = t / "sess";
  constexpr int kThreads = 8, kEach = 40;
  std::vector<std::vector<std::string>> ids(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] {
      ArtifactAllocator a(dir);
      for (int k = 0; k < kEach; ++k) ids[i].push_back(a.allocate("tool" + std::to_string(i)).id);
    });
  for (auto& th : threads) th.join();
  std::set<std::string> all;
  for (const auto& v : ids) all.insert(v.begin(), v.end());
  EXPECT_EQ(all.size(), std::size_t{kThreads * kEach});
  // The folder agrees: one file per number.
  EXPECT_EQ(list_artifact_ids(dir).size(), std::size_t{kThreads * kEach});
  std::size_t files = 0;
  for (auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, std::size_t{kThreads * kEach});
}

TEST(Artifacts, ConcurrentProcessesNeverShareANumber) {
  TempDir t;
  const fs::path dir = t / "sess";
  constexpr int kProcs = 4, kEach = 25;
  std::vector<pid_t> pids;
  for (int i = 0; i < kProcs; ++i) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 0;
      try {
        ArtifactAllocator a(dir);
        for (int k = 0; k < kEach; ++k) a.allocate("p" + std::to_string(i));
      } catch (...) {
        code = 1;
      }
      ::_exit(code);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  std::size_t files = 0;
  for (auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, std::size_t{kProcs * kEach});
  EXPECT_EQ(list_artifact_ids(dir).size(), std::size_t{kProcs * kEach});
}

TEST(Artifacts, AgentOutputsNumberPerParentAndResume) {
  TempDir t;
  const fs::path dir = t / "sess";
  AgentOutputAllocator a(dir);
  EXPECT_EQ(a.allocate("Explore").id, "0-Explore");
  EXPECT_EQ(a.allocate("Review").id, "1-Review");
  EXPECT_EQ(a.allocate("Child", "0-Explore").id, "0-Explore.0-Child");
  EXPECT_EQ(a.allocate("Child", "0-Explore").id, "0-Explore.1-Child");
  EXPECT_EQ(a.allocate("Deep", "0-Explore.1-Child").id, "0-Explore.1-Child.0-Deep");
  EXPECT_EQ(a.allocate("Next").id, "2-Next") << "children do not count at the top";
  EXPECT_TRUE(fs::is_regular_file(dir / "0-Explore.1-Child.0-Deep.md"));
  // A new allocator (a resumed session) continues after a scan.
  test::write_text(dir / "9-Old.md", "x");
  AgentOutputAllocator resumed(dir);
  EXPECT_EQ(resumed.allocate("New").id, "10-New");
  EXPECT_EQ(resumed.allocate("Kid", "1-Review").id, "1-Review.0-Kid");
  EXPECT_THROW(resumed.allocate("x", "../../etc"), Error);
  EXPECT_THROW(resumed.allocate("a.b"), Error);
  EXPECT_EQ(list_agent_ids(dir).front(), "0-Explore");
  // oh-my-pi's name-first outputs in the same folder are listed, and
  // numbering skips them ("Anna-2" is not number 2 of anything), also under
  // a name-first parent.
  test::write_text(dir / "Anna.md", "x");
  test::write_text(dir / "Anna-20.md", "x");
  test::write_text(dir / "Anna.Bob.md", "x");
  AgentOutputAllocator again(dir);
  EXPECT_EQ(again.allocate("More").id, "11-More");
  EXPECT_EQ(again.allocate("Kid", "Anna").id, "Anna.0-Kid");
  EXPECT_EQ(again.allocate("Kid", "Anna").id, "Anna.1-Kid");
  const auto ids = list_agent_ids(dir);
  EXPECT_NE(std::find(ids.begin(), ids.end(), "Anna-20"), ids.end());
  EXPECT_NE(std::find(ids.begin(), ids.end(), "Anna.Bob"), ids.end());
}

TEST(Artifacts, ConcurrentAgentOutputsNeverShareANumber) {
  TempDir t;
  const fs::path dir = t / "sess";
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i)
    threads.emplace_back([&, i] {
      AgentOutputAllocator a(dir);
      for (int k = 0; k < 20; ++k) a.allocate("w" + std::to_string(i));
    });
  for (auto& th : threads) th.join();
  std::set<std::string> numbers;
  for (const auto& id : list_agent_ids(dir)) numbers.insert(id.substr(0, id.find('-')));
  EXPECT_EQ(numbers.size(), 120u);
}

TEST(Artifacts, SensitivePaths) {
  for (const char* p : {".env", "a/.env", ".env.local", "server.pem", "id_rsa_key", "x/.git/config"})
    EXPECT_TRUE(is_sensitive_path(p)) << p;
  for (const char* p : {"3.bash.log", "environment", "config", "git/config", "0-Agent.md", "key.txt"})
    EXPECT_FALSE(is_sensitive_path(p)) << p;
}

}  // namespace
}  // namespace jpblob
