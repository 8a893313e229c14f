// New blobs written once into git's objects (core/lean/pending_packs): a
// pack with a `.keep` and a record, read back through the record, kept by
// real git's gc until released, then git's to prune; the leftovers of a
// killed writer; the hook's wait for a writer still gathering.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>

#include "core/base/error.hpp"
#include "core/base/fs.hpp"
#include "core/format/gzip.hpp"
#include "core/git/git_repo.hpp"
#include "core/lean/pending_packs.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

struct PendingSandbox {
  test::GitSandbox sandbox;
  fs::path t = sandbox.repo();
  GitRepo repo = *GitRepo::open(t);
  PendingPacks pending{repo, {}};

  std::vector<bool> put(const std::vector<std::string_view>& payloads) const {
    std::vector<Digest> digests;
    for (std::string_view p : payloads) digests.push_back(Sha256::of(p));
    return pending.put_all(payloads, digests);
  }
  std::vector<std::string> names(const std::string& suffix) const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(t / ".git/objects/pack"))
      if (e.path().extension() == suffix) out.push_back(e.path().stem().string());
    return out;
  }
};

TEST(PendingPacks, GatheredBlobsBecomeOnePackOutsideGitThatJoinsItKeptWhenStaged) {
  PendingSandbox s;
  ASSERT_TRUE(s.pending.usable());
  const std::string one = test::random_bytes(5000, 1), two = test::random_bytes(7000, 2);
  EXPECT_EQ(s.put({one, two, one}), (std::vector<bool>{true, true, false}));
  EXPECT_TRUE(s.pending.gathered());
  const fs::path folder = s.t / ".git/jpblob/pending";
  EXPECT_TRUE(fs::exists(folder / ("writing-" + std::to_string(::getpid()))))
      << "a hook can see that this process still holds blobs no pack has";
  // Readable before any pack exists: the same process smudges what it cleaned.
  EXPECT_EQ(s.pending.fetch(Sha256::of(one), std::nullopt), one);

  s.pending.flush();
  EXPECT_FALSE(s.pending.gathered());
  EXPECT_FALSE(fs::exists(folder / ("writing-" + std::to_string(::getpid()))));
  const auto packs = s.pending.packs();
  ASSERT_EQ(packs.size(), 1u);
  ASSERT_EQ(packs[0].blobs.size(), 2u);
  EXPECT_FALSE(packs[0].admitted);
  EXPECT_TRUE(fs::exists(folder / (packs[0].name + ".pack")));
  EXPECT_TRUE(s.names(".pack").empty()) << "git's objects are untouched until a commit stages them";
  const std::string id = packs[0].blobs[0].second;
  EXPECT_NE(test::run("git cat-file -e " + id, s.t).status, 0);
  // Read from the pack's entry, by the record, in another process too.
  PendingPacks reader(s.repo, {});
  EXPECT_EQ(reader.fetch(Sha256::of(two), two.size()), two);
  EXPECT_EQ(s.put({two}), std::vector<bool>{false}) << "a recorded blob is not written again";
  // git's gc knows nothing of it, and so takes nothing.
  s.sandbox.git("gc -q --prune=now");
  EXPECT_EQ(reader.fetch(Sha256::of(one), std::nullopt), one);

  // Staging admits the pack into git's objects, kept: git reads every
  // object, and `git gc --prune=now` leaves them, unreachable as they are.
  EXPECT_EQ(reader.staged_id(packs[0].blobs[0].first), id);
  EXPECT_EQ(s.names(".pack"), std::vector<std::string>{packs[0].name});
  EXPECT_EQ(test::read_text(s.t / ".git/objects/pack" / (packs[0].name + ".keep")),
            std::string(PendingPacks::kKeepMessage) + "\n");
  EXPECT_FALSE(fs::exists(folder / (packs[0].name + ".pack")));
  EXPECT_TRUE(reader.packs().at(0).admitted);
  for (const auto& [digest, object] : packs[0].blobs) {
    const std::string raw = test::must("git cat-file blob " + object, s.t);
    EXPECT_EQ(gzip_decompress(raw, 1 << 20), digest == Sha256::of(one) ? one : two);
  }
  s.sandbox.git("-c gc.cruftPacks=false gc -q --prune=now");
  s.sandbox.git("gc -q --prune=now");
  EXPECT_EQ(PendingPacks(s.repo, {}).fetch(Sha256::of(two), std::nullopt), two);
  EXPECT_EQ(test::run("git cat-file -e " + id, s.t).status, 0);

  // Released, they are git's to prune like any unreachable object.
  reader.release(packs[0].name);
  EXPECT_TRUE(s.names(".keep").empty());
  EXPECT_TRUE(reader.packs().empty());
  s.sandbox.git("gc -q --prune=now");
  EXPECT_NE(test::run("git cat-file -e " + id, s.t).status, 0);
  PendingPacks after(s.repo, {});
  EXPECT_FALSE(after.contains(Sha256::of(one)));
  EXPECT_EQ(after.fetch(Sha256::of(one), std::nullopt), std::nullopt);
}

// A full disk fails the put, while git still waits for the clean's answer
// (the clean fails, and git's add with it), never the write after.
TEST(PendingPacks, AFullDiskFailsThePutAndLosesNothingGatheredBefore) {
  PendingSandbox s;
  const std::string before = test::random_bytes(4000, 7), during = test::random_bytes(4000, 8);
  s.put({before});
  {
    Syscalls full = syscalls();
    full.write = [](int, const void*, size_t) -> ssize_t {
      errno = ENOSPC;
      return -1;
    };
    ScopedSyscalls fault(full);
    EXPECT_NE(test::error_of([&] { s.put({during}); }).find("No space left on device"), std::string::npos);
  }
  EXPECT_FALSE(s.pending.contains(Sha256::of(during)));
  EXPECT_EQ(s.put({during}), std::vector<bool>{true}) << "and it goes in once space is back";
  s.pending.flush();
  PendingPacks reader(s.repo, {});
  EXPECT_EQ(reader.fetch(Sha256::of(before), std::nullopt), before);
  EXPECT_EQ(reader.fetch(Sha256::of(during), std::nullopt), during);
  EXPECT_EQ(reader.packs().size(), 1u);
  for (const auto& e : fs::directory_iterator(s.t / ".git/jpblob/pending"))
    EXPECT_FALSE(e.path().filename().string().starts_with("tmp_")) << "no half-written pack left: " << e.path();
}

// A record planted as a FIFO is passed over, never waited on; a pending
// folder that is a link or a file is never written through: new blobs are
// kept copies then.
TEST(PendingPacks, AFifoRecordAndALinkedFolderAreNeitherWaitedOnNorUsed) {
  PendingSandbox s;
  fs::create_directories(s.t / ".git/jpblob/pending");
  ASSERT_EQ(::mkfifo((s.t / ".git/jpblob/pending/pack-0000000000000000000000000000000000000000.list").c_str(), 0600), 0);
  EXPECT_TRUE(s.pending.packs().empty());
  EXPECT_FALSE(s.pending.contains(Sha256::of("x")));
  test::TempDir elsewhere;
  fs::remove_all(s.t / ".git/jpblob/pending");
  fs::create_directory_symlink(elsewhere.path(), s.t / ".git/jpblob/pending");
  PendingPacks linked(s.repo, {});
  EXPECT_FALSE(linked.usable());
  EXPECT_TRUE(fs::is_empty(elsewhere.path()));
}

TEST(PendingPacks, APackNeverStagedGoesWholeWhenReleased) {
  PendingSandbox s;
  s.put({test::random_bytes(3000, 6)});
  s.pending.flush();
  const std::string name = s.pending.packs().at(0).name;
  s.pending.release(name);
  EXPECT_TRUE(fs::is_empty(s.t / ".git/jpblob/pending")) << "pack, index and record";
  EXPECT_TRUE(s.names(".pack").empty());
}

TEST(PendingPacks, AnotherProcessFindsARecordWrittenAfterItFirstLooked) {
  PendingSandbox s;
  PendingPacks reader(s.repo, {});
  const std::string text = test::random_bytes(3000, 3);
  EXPECT_FALSE(reader.contains(Sha256::of(text)));
  s.put({text});
  s.pending.flush();
  reader.wait_for_writers(0);  // what the hook does before it looks again
  EXPECT_TRUE(reader.contains(Sha256::of(text)));
  EXPECT_EQ(reader.fetch(Sha256::of(text), text.size()), text);
}

TEST(PendingPacks, ADamagedEntryOrAWrongRecordIsAnErrorNotAnotherBlob) {
  PendingSandbox s;
  const std::string text = test::random_bytes(3000, 4);
  s.put({text});
  s.pending.flush();
  const auto pack = s.pending.packs().at(0);
  const Digest d = Sha256::of(text);
  // A byte of the stored blob flipped in the pack.
  const fs::path file = s.t / ".git/jpblob/pending" / (pack.name + ".pack");
  std::string bytes = test::read_text(file);
  bytes[pack.offsets[0] + pack.lengths[0] / 2] ^= 1;
  fs::permissions(file, fs::perms::owner_write, fs::perm_options::add);
  test::write_text(file, bytes);
  EXPECT_NE(test::error_of([&] { PendingPacks(s.repo, {}).fetch(d, std::nullopt); }), "");
  // A record naming another blob's place.
  test::write_text(s.t / ".git/jpblob/pending" / (pack.name + ".list"),
                   d.hex() + " " + pack.blobs[0].second + " 12 40\n");
  EXPECT_NE(test::error_of([&] { PendingPacks(s.repo, {}).fetch(d, std::nullopt); }), "");
}

TEST(PendingPacks, SweepTakesStaleRecordsAndOrphansOfOursOnly) {
  PendingSandbox s;
  s.put({test::random_bytes(3000, 5)});
  s.pending.flush();
  const std::string name = s.pending.packs().at(0).name;
  const fs::path folder = s.t / ".git/jpblob/pending";
  // A writer killed between its pack and its record: an hour on, the pack
  // goes. So does a `.keep` of ours a killed hook left in git's objects;
  // another tool's `.keep` stays whatever its age.
  fs::remove(folder / (name + ".list"));
  const fs::path ours = s.t / ".git/objects/pack" / "pack-89abcdef0123456789abcdef0123456789abcdef.keep";
  const fs::path theirs = s.t / ".git/objects/pack" / "pack-0123456789abcdef0123456789abcdef01234567.keep";
  test::write_text(ours, std::string(PendingPacks::kKeepMessage) + "\n");
  test::write_text(theirs, "kept by hand\n");
  EXPECT_EQ(s.pending.sweep(true), (std::pair<std::size_t, std::size_t>{0, 0})) << "too young";
  for (const fs::path& f : {folder / (name + ".pack"), folder / (name + ".idx"), ours, theirs})
    test::must("touch -d '2 hours ago' " + test::shell_quote(f.string()), s.t);
  EXPECT_EQ(s.pending.sweep(false), (std::pair<std::size_t, std::size_t>{0, 3}));
  EXPECT_TRUE(fs::exists(ours)) << "only counted";
  EXPECT_EQ(s.pending.sweep(true), (std::pair<std::size_t, std::size_t>{0, 3}));
  EXPECT_FALSE(fs::exists(ours));
  EXPECT_FALSE(fs::exists(folder / (name + ".pack")));
  EXPECT_TRUE(fs::exists(theirs));

  // A record whose pack is gone names nothing.
  test::write_text(folder / "pack-89abcdef0123456789abcdef0123456789abcdef.list",
                   Sha256::of("x").hex() + " 89abcdef0123456789abcdef0123456789abcdef 12 40\n");
  EXPECT_EQ(s.pending.sweep(true), (std::pair<std::size_t, std::size_t>{1, 0}));
  EXPECT_TRUE(s.pending.packs().empty());
}

TEST(PendingPacks, TheHookWaitsForALiveWriterOnlyAndForgetsADeadOne) {
  PendingSandbox s;
  const fs::path folder = s.t / ".git/jpblob/pending";
  fs::create_directories(folder);
  // A dead writer's marker: removed, not waited for.
  const pid_t dead = ::fork();
  if (dead == 0) ::_exit(0);
  ::waitpid(dead, nullptr, 0);
  test::write_text(folder / ("writing-" + std::to_string(dead)), "");
  auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(s.pending.wait_for_writers(5000));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_FALSE(fs::exists(folder / ("writing-" + std::to_string(dead))));

  // A live process whose pid a dead writer's marker names (the pid taken
  // again): its start time differs from the one written, so not waited for.
  test::write_text(folder / ("writing-" + std::to_string(::getpid() == 1 ? 2 : 1)), "999999999999");
  start = std::chrono::steady_clock::now();
  EXPECT_FALSE(s.pending.wait_for_writers(5000));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));

  // A live one: waited for until its marker goes.
  const pid_t live = ::fork();
  if (live == 0) {
    ::pause();
    ::_exit(0);
  }
  const fs::path marker = folder / ("writing-" + std::to_string(live));
  test::write_text(marker, "");
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    fs::remove(marker);
  });
  start = std::chrono::steady_clock::now();
  EXPECT_TRUE(s.pending.wait_for_writers(5000));
  const auto waited = std::chrono::steady_clock::now() - start;
  writer.join();
  EXPECT_GE(waited, std::chrono::milliseconds(250));
  EXPECT_LT(waited, std::chrono::seconds(4));
  // One that never finishes: waited for no longer than asked.
  test::write_text(marker, "");
  start = std::chrono::steady_clock::now();
  EXPECT_TRUE(s.pending.wait_for_writers(200));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ::kill(live, SIGKILL);
  ::waitpid(live, nullptr, 0);
}

TEST(PendingPacks, ASharedRepositoryKeepsItsNewBlobsAsKeptCopies) {
  PendingSandbox s;
  s.sandbox.git("config core.sharedRepository group");
  PendingPacks shared(s.repo, {});
  EXPECT_FALSE(shared.usable()) << "git's own index-pack sets a shared repository's permissions";
}

}  // namespace
}  // namespace jpblob
