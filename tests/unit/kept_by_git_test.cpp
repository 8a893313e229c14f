// What git keeps in artifacts folders (core/artifacts/kept_by_git), and
// where a folder's lock lives (core/artifacts/output_index: issue 44).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/time.h>

#include <map>

#include "core/artifacts/artifact_lifetime.hpp"
#include "core/artifacts/artifacts.hpp"
#include "core/artifacts/kept_by_git.hpp"
#include "core/artifacts/output_index.hpp"
#include "core/base/fs.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;
using test::GitSandbox;
using test::TempDir;
using test::write_text;

Citations cited(std::string_view text) {
  Citations c;
  add_citations(text, c);
  return c;
}

// ------------------------------------------------------------ citations

TEST(Citations, ArtifactUrlsCiteTheirNumberWhateverTheTool) {
  const Citations c = cited(R"({"text":"Full output: artifact://3, and artifact://12."})");
  EXPECT_TRUE(c.cites("3.bash.log"));
  EXPECT_TRUE(c.cites("12.python.log"));
  EXPECT_FALSE(c.cites("1.bash.log"));  // artifact://12 is not artifact://1
  EXPECT_FALSE(c.cites("2.bash.log"));
  EXPECT_FALSE(c.cites("3.md"));
  EXPECT_TRUE(cited(R"({"text":"artifact:\/\/7"})").cites("7.bash.log"));  // a slash JSON escaped
  EXPECT_FALSE(cited("artifact://").cites("0.bash.log"));
  EXPECT_FALSE(cited("artifact://x1").cites("1.bash.log"));
}

TEST(Citations, ANameCitesItselfOnlyWhole) {
  const Citations c = cited(R"({"text":"see .jp/sessions/s/0.bash.log and 0-Explore.md."})");
  EXPECT_TRUE(c.cites("0.bash.log"));
  EXPECT_TRUE(c.cites("0-Explore.md"));  // the full stop after it is the sentence's
  EXPECT_FALSE(cited("10.bash.log").cites("0.bash.log"));
  EXPECT_FALSE(cited("0.bash.log.old").cites("0.bash.log"));
  EXPECT_FALSE(cited("file0.bash.log").cites("0.bash.log"));
  EXPECT_FALSE(cited("outputs.json 0.bash").cites("0.bash.log"));
}

TEST(Citations, ANameAfterAJsonEscapeCountsWithoutItsLetter) {
  EXPECT_TRUE(cited(R"({"out":"total 2\n0.bash.log\n1.bash.log"})").cites("0.bash.log"));
  EXPECT_TRUE(cited(R"({"out":"\n1.bash.log"})").cites("1.bash.log"));
  EXPECT_TRUE(cited(R"({"out":"\t2-Plan.md"})").cites("2-Plan.md"));
  EXPECT_TRUE(cited(R"({"out":"\u00a03.bash.log"})").cites("3.bash.log"));
  // Without the backslash, the letter is the name's own.
  EXPECT_FALSE(cited("n0.bash.log").cites("0.bash.log"));
}

TEST(Citations, SessionFileOfAFolder) {
  EXPECT_EQ(session_file_of("/r/.jp/sessions/2026_x"), fs::path("/r/.jp/sessions/2026_x.jsonl"));
  EXPECT_EQ(session_file_of("s"), fs::path("s.jsonl"));
}

// ------------------------------------------------------------ KeptByGit

// A session with artifacts 0 to 2 in a repository: 0.bash.log committed,
// the session staged citing artifact://1, then citing artifact://2 in the
// work tree only.
struct SessionRepo {
  GitSandbox g;
  fs::path session = g.repo() / ".jp" / "sessions" / "s.jsonl";
  fs::path dir = g.repo() / ".jp" / "sessions" / "s";
  SessionRepo() {
    for (const char* name : {"0.bash.log", "1.bash.log", "2.bash.log"}) write_text(dir / name, "out\n");
    write_text(session, "{\"text\":\"artifact://1\"}\n");
    g.git("add .jp/sessions/s.jsonl .jp/sessions/s/0.bash.log");
    write_text(session, "{\"text\":\"artifact://1\"}\n{\"text\":\"artifact://2\"}\n");
  }
};

TEST(KeptByGit, KeepsWhatTheIndexTracksAndWhatItsSessionCites) {
  SessionRepo r;
  const KeptByGit kept = KeptByGit::ask({r.g.repo() / ".jp" / "sessions"});
  EXPECT_EQ(kept.why(r.dir, "0.bash.log"), "tracked by git");
  EXPECT_EQ(kept.why(r.dir, "1.bash.log"), "cited by " + r.session.string() + ", which git tracks");
  EXPECT_EQ(kept.why(r.dir, "2.bash.log"), std::nullopt);  // the work-tree file alone cites it
  EXPECT_TRUE(kept.tracks_session(r.dir));
  EXPECT_TRUE(kept.tracks(r.dir / "0.bash.log"));
  EXPECT_FALSE(kept.tracks(r.dir / "1.bash.log"));
}

TEST(KeptByGit, AFolderAskedByAnotherSpellingIsTheSame) {
  SessionRepo r;
  const fs::path saved = fs::current_path();
  fs::current_path(r.g.repo() / ".jp");
  const KeptByGit kept = KeptByGit::ask({"sessions/s", "sessions/s.jsonl"});
  EXPECT_EQ(kept.why("sessions/s", "0.bash.log"), "tracked by git");
  EXPECT_EQ(kept.why(r.dir, "0.bash.log"), "tracked by git");
  EXPECT_EQ(kept.why("../.jp/sessions/s", "1.bash.log"), "cited by ../.jp/sessions/s.jsonl, which git tracks");
  fs::current_path(saved);
}

TEST(KeptByGit, EveryStageOfAConflictedSessionCites) {
  SessionRepo r;
  r.g.git("commit -qm base");
  r.g.git("checkout -qb side");
  write_text(r.session, "{\"text\":\"artifact://2\"}\n");
  r.g.git("commit -qam side");
  r.g.git("checkout -q main");
  write_text(r.session, "{\"text\":\"artifact://1\"}\n{\"x\":1}\n");
  r.g.git("commit -qam main");
  EXPECT_NE(test::run("git merge -q side", r.g.repo()).status, 0);  // a conflict: stages 1 to 3
  const KeptByGit kept = KeptByGit::ask({r.dir, r.session});
  EXPECT_TRUE(kept.why(r.dir, "1.bash.log"));
  EXPECT_TRUE(kept.why(r.dir, "2.bash.log"));
}

TEST(KeptByGit, OutsideARepositoryNothingIsKept) {
  TempDir t;
  write_text(t / "s" / "0.bash.log", "out\n");
  write_text(t / "s.jsonl", "artifact://0\n");
  const KeptByGit kept = KeptByGit::ask({t / "s", t / "s.jsonl", t / "missing"});
  EXPECT_EQ(kept.why(t / "s", "0.bash.log"), std::nullopt);
  EXPECT_FALSE(kept.tracks_session(t / "s"));
}

TEST(KeptByGit, CleanupsLeaveWhatGitKeepsAndSayWhy) {
  SessionRepo r;
  const KeptByGit kept = KeptByGit::ask({r.dir, r.session});
  const struct timeval old[2] = {{1'000'000'000, 0}, {1'000'000'000, 0}};
  for (const char* name : {"0.bash.log", "1.bash.log", "2.bash.log"}) ::utimes((r.dir / name).c_str(), old);
  CleanupReport expired;
  cleanup_expired(r.dir, kept, 3600, 1'800'000'000, DryRun::No, expired);
  EXPECT_EQ(expired.removed, std::vector<fs::path>{r.dir / "2.bash.log"});
  std::map<fs::path, std::string> why;
  for (const auto& k : expired.kept) why[k.path] = k.why;
  EXPECT_EQ(why, (std::map<fs::path, std::string>{
                     {r.dir / "0.bash.log", "tracked by git"},
                     {r.dir / "1.bash.log", "cited by " + r.session.string() + ", which git tracks"}}));
  CleanupReport session;
  cleanup_session(r.dir, kept, DryRun::No, session);
  EXPECT_EQ(session.removed, std::vector<fs::path>{r.dir / "outputs.json"});  // the index the first cleanup wrote
  EXPECT_TRUE(fs::exists(r.dir / "0.bash.log"));
  EXPECT_TRUE(fs::exists(r.dir / "1.bash.log"));
  EXPECT_TRUE(session.removed_folders.empty());
}

// ------------------------------------------------------------ the lock's place

TEST(OutputLock, InAWorkTreeItLivesInTheGitFolderAndGoesWithItsRelease) {
  GitSandbox g;
  const fs::path dir = g.repo() / ".jp" / "sessions" / "s";
  fs::create_directories(dir);
  const OutputLockPlace place = OutputLockPlace::of(dir);
  ASSERT_TRUE(place.locks_dir);
  EXPECT_EQ(fs::weakly_canonical(*place.locks_dir), fs::weakly_canonical(g.repo() / ".git" / "jpblob" / "locks"));
  const Fd fd = open_artifacts_folder(dir, false);
  {
    const OutputIndexLock lock(fd.get(), dir, place);
    EXPECT_TRUE(fs::exists(*place.locks_dir / output_lock_name(fs::weakly_canonical(dir))));
    EXPECT_FALSE(fs::exists(dir / ".outputs.lock"));
  }
  EXPECT_TRUE(fs::is_empty(*place.locks_dir));
}

TEST(OutputLock, ALinkedWorktreeLocksInTheCommonGitFolder) {
  GitSandbox g;
  g.git("commit -q --allow-empty -m base");
  g.git("worktree add -q ../linked");
  const fs::path dir = g.repo() / ".." / "linked" / "s";
  fs::create_directories(dir);
  const OutputLockPlace place = OutputLockPlace::of(dir);
  ASSERT_TRUE(place.locks_dir);
  EXPECT_EQ(fs::weakly_canonical(*place.locks_dir), fs::weakly_canonical(g.repo() / ".git" / "jpblob" / "locks"));
}

TEST(OutputLock, OutsideARepositoryItStaysInTheFolder) {
  TempDir t;
  fs::create_directories(t / "s");
  const OutputLockPlace place = OutputLockPlace::of(t / "s");
  EXPECT_FALSE(place.locks_dir);
  const Fd fd = open_artifacts_folder(t / "s", false);
  { const OutputIndexLock lock(fd.get(), t / "s", place); }
  EXPECT_TRUE(fs::exists(t / "s" / ".outputs.lock"));
}

TEST(OutputLock, OneFolderOneNameHowever) {
  const std::string a = output_lock_name("/r/.jp/sessions/a"), b = output_lock_name("/r/.jp/sessions/b");
  EXPECT_NE(a, b);
  EXPECT_EQ(a, output_lock_name("/r/.jp/sessions/a"));
  EXPECT_EQ(a.size(), 64u + 5u);
  EXPECT_TRUE(a.ends_with(".lock"));
}

TEST(OutputLock, AnEarlierVersionsLockGoesWhenFreeAndUntracked) {
  GitSandbox g;
  const fs::path dir = g.repo() / "s";
  write_text(dir / ".outputs.lock", "");
  const Fd fd = open_artifacts_folder(dir, false);
  const OutputLockPlace place = OutputLockPlace::of(dir);
  ASSERT_TRUE(place.locks_dir);  // else the lock below waits for the holder for ever
  {
    const Fd holder(::open((dir / ".outputs.lock").c_str(), O_RDONLY | O_CLOEXEC));
    ASSERT_EQ(::flock(holder.get(), LOCK_EX), 0);
    const OutputIndexLock lock(fd.get(), dir, place);
    EXPECT_EQ(lock.legacy(), LegacyLock::Held);
    EXPECT_TRUE(fs::exists(dir / ".outputs.lock"));
  }
  g.git("add s/.outputs.lock");
  {
    const OutputIndexLock lock(fd.get(), dir, place);
    EXPECT_EQ(lock.legacy(), LegacyLock::Tracked);
    EXPECT_TRUE(fs::exists(dir / ".outputs.lock"));
  }
  g.git("rm -q --cached s/.outputs.lock");
  {
    const OutputIndexLock lock(fd.get(), dir, place);
    EXPECT_EQ(lock.legacy(), LegacyLock::Removed);
    EXPECT_FALSE(fs::exists(dir / ".outputs.lock"));
  }
  const OutputIndexLock lock(fd.get(), dir, place);
  EXPECT_EQ(lock.legacy(), LegacyLock::None);
}

}  // namespace
}  // namespace jpblob
