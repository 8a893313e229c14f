#include <map>
#include "core/store/blob_store.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "core/base/error.hpp"
#include "core/format/gzip.hpp"
#include "gzip_bomb.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;
using test::TempDir;
using test::error_of;

using test::count_files;

TEST(BlobStore, PutThenGetAtTheSpecifiedPath) {
  TempDir t;
  BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
  const auto r = store.put("hello");
  EXPECT_TRUE(r.written);
  const std::string hex = r.digest.hex();
  EXPECT_EQ(hex, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
  const fs::path file = t / (".jp/blobs/2c/f2/" + hex + ".blob.gz");
  EXPECT_TRUE(fs::is_regular_file(file));
  EXPECT_EQ(store.path_of(r.digest), file);
  EXPECT_EQ(gzip_decompress(test::read_text(file), 100), "hello");
  EXPECT_EQ(store.get(r.digest, 5), "hello");
  EXPECT_TRUE(store.contains(r.digest));
  EXPECT_FALSE(store.contains(Sha256::of("other")));
  EXPECT_EQ(store.get(Sha256::of("other")), std::nullopt);
}

TEST(BlobStore, PresentBlobIsNeverRewritten) {
  TempDir t;
  BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
  const auto first = store.put("same");
  const fs::path file = store.path_of(first.digest);
  // Another sound spelling of the same blob (another level: another XFL
  // byte), so a rewrite would show.
  const std::string other = gzip_compress("same", 1);
  ASSERT_NE(other, test::read_text(file));
  test::write_text(file, other);
  const auto second = store.put("same");
  EXPECT_FALSE(second.written);
  EXPECT_EQ(test::read_text(file), other);
  EXPECT_EQ(count_files(t / ".jp/blobs"), 1u);
}

TEST(BlobStore, ACorruptFileUnderTheNameIsNeitherTrustedNorReplaced) {
  // It may be tracked: git would put it back over a replacement, so the
  // caller keeps its bytes and is told to repair.
  TempDir t;
  BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
  const fs::path file = store.path_of(store.put("same").digest);
  test::write_text(file, "marker");
  EXPECT_THROW(store.put("same"), CorruptBlobInTheWay);
  EXPECT_THROW(store.put_all({"same", "other"}), CorruptBlobInTheWay);
  EXPECT_EQ(test::read_text(file), "marker");
}

TEST(BlobStore, EqualContentGivesEqualFileBytes) {
  TempDir a, b;
  const auto da = BlobStore::for_storage(a / ".jp", a.path()).put("payload bytes");
  const auto db = BlobStore::for_storage(b / ".jp", b.path()).put("payload bytes");
  EXPECT_EQ(test::read_text(BlobStore::for_storage(a / ".jp", a.path()).path_of(da.digest)),
            test::read_text(BlobStore::for_storage(b / ".jp", b.path()).path_of(db.digest)));
}

TEST(BlobStore, CorruptBlobsAreErrorsNamingTheFile) {
  TempDir t;
  BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
  const auto d = store.put("the real content").digest;
  const fs::path file = store.path_of(d);
  std::string gz = test::read_text(file);

  // One flipped byte in the deflate data.
  std::string flipped = gz;
  flipped[12] ^= 0x01;
  test::write_text(file, flipped);
  std::string msg = error_of([&] { store.get(d, 16); });
  EXPECT_NE(msg.find(file.string()), std::string::npos) << msg;
  EXPECT_NE(msg.find("corrupt"), std::string::npos) << msg;

  // A valid gzip of other content under this name.
  test::write_text(file, gzip_compress("other content!!!"));
  msg = error_of([&] { store.get(d, 16); });
  EXPECT_NE(msg.find("does not match its name"), std::string::npos) << msg;

  // The right content but a reference that declares another size.
  test::write_text(file, gz);
  msg = error_of([&] { store.get(d, 15); });
  EXPECT_NE(msg.find("declares"), std::string::npos) << msg;
  msg = error_of([&] { store.get(d, 17); });
  EXPECT_NE(msg.find("declares 17"), std::string::npos) << msg;
  EXPECT_EQ(store.get(d, 16), "the real content");

  // Not gzip at all.
  test::write_text(file, "plain text");
  msg = error_of([&] { store.get(d); });
  EXPECT_NE(msg.find("corrupt gzip"), std::string::npos) << msg;
}

// Without a reference's size (verify, gc, the hook's staged blobs),
// decode_blob sizes its one-call inflate from the gzip trailer. The
// trailer is a hint: a wrong one never shortens, pads or passes a blob,
// and one that declares more than the limit buys no memory.
TEST(BlobStore, TheTrailersSizeIsAHintAndNeverTrusted) {
  // Text that deflate makes little smaller: within 64:1, the one-call path.
  std::string content;
  std::uint32_t state = 12345;
  while (content.size() < 100000) content += static_cast<char>('a' + ((state = state * 1103515245 + 12345) >> 16) % 26);
  const Digest d = Sha256::of(content);
  const std::string gz = gzip_compress(content);
  EXPECT_EQ(decode_blob(gz, d, std::nullopt, 1 << 20, "b"), content);
  auto with_isize = [&](std::uint32_t isize) {
    std::string lying = gz;
    for (int i = 0; i < 4; ++i) lying[lying.size() - 4 + i] = static_cast<char>((isize >> (8 * i)) & 0xff);
    return lying;
  };
  // Fewer bytes than the data holds, more, none, and more than 2^32 - 1.
  EXPECT_EQ(check_blob(gz, d, std::nullopt, 1 << 20, "b"), content.size());
  for (std::uint32_t isize : {std::uint32_t{5}, std::uint32_t{99999}, std::uint32_t{100001}, std::uint32_t{0},
                              std::uint32_t{0xffffffff}}) {
    std::string msg = error_of([&] { decode_blob(with_isize(isize), d, std::nullopt, 1 << 20, "b"); });
    EXPECT_NE(msg.find("is corrupt"), std::string::npos) << isize << ": " << msg;
    msg = error_of([&] { check_blob(with_isize(isize), d, std::nullopt, 1 << 20, "b"); });
    EXPECT_NE(msg.find("is corrupt"), std::string::npos) << "check_blob, " << isize << ": " << msg;
  }
  // A trailer that declares more than the limit allows is refused before
  // anything is inflated.
  EXPECT_NE(error_of([&] { decode_blob(gz, d, std::nullopt, 99999, "b"); }).find("99999"), std::string::npos);
  // A CRC that does not match: the one-call inflate checks it too.
  std::string bad_crc = gz;
  bad_crc[bad_crc.size() - 8] ^= 0x01;
  EXPECT_NE(error_of([&] { decode_blob(bad_crc, d, std::nullopt, 1 << 20, "b"); }).find("CRC"), std::string::npos);
  // Right bytes, another blob's name.
  EXPECT_NE(error_of([&] { decode_blob(gz, Sha256::of("other"), std::nullopt, 1 << 20, "b"); })
                .find("does not match its name"),
            std::string::npos);
}

// A check (verify, gc, the hooks) keeps no blob whole: 256 MiB of bomb
// whose trailer claims 100 bytes, under a limit that lets it inflate,
// is hashed as it goes, and refused in a few megabytes.
TEST(BlobStore, ACheckHoldsNoBlobWhole) {
  const std::string bomb = test::make_gzip_bomb(std::uint64_t{256} << 20, 100);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    rusage before {};
    ::getrusage(RUSAGE_SELF, &before);
    bool refused = false;
    try {
      check_blob(bomb, Sha256::of("x"), std::nullopt, std::uint64_t{1} << 30, "bomb");
    } catch (const Error&) {
      refused = true;
    }
    rusage after {};
    ::getrusage(RUSAGE_SELF, &after);
    // Exit 0: refused, and the child's peak grew by less than 32 MiB.
    ::_exit(refused && after.ru_maxrss - before.ru_maxrss < 32 * 1024 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a check held the bomb's content, or accepted it";
}

TEST(BlobStore, GzipBombUnderABlobNameIsRefused) {
  TempDir t;
  StoreOptions opts;
  opts.max_blob_size = 8 << 20;
  BlobStore store = BlobStore::for_storage(t / ".jp", t.path(), opts);
  const Digest d = Sha256::of("claimed");
  fs::create_directories(store.path_of(d).parent_path());
  // 1 GiB in about 5 MB, with a trailer that lies.
  test::write_text(store.path_of(d), test::make_gzip_bomb(std::uint64_t{1} << 30, 7));
  EXPECT_NE(error_of([&] { store.get(d, 7); }).find("more than the 7 bytes"), std::string::npos);
  EXPECT_NE(error_of([&] { store.get(d); }).find("inflates past"), std::string::npos);
  // 3 GiB: the file itself is larger than any blob of the allowed size.
  test::write_text(store.path_of(d), test::make_gzip_bomb(std::uint64_t{3} << 30, 7));
  EXPECT_NE(error_of([&] { store.get(d, 7); }).find("larger than"), std::string::npos);
}

TEST(BlobStore, RefusesAStoreThatLinksOutsideTheBoundary) {
  TempDir outside, repo;
  fs::create_directories(repo / ".jp");
  fs::create_directory_symlink(outside.path(), repo / ".jp/blobs");
  const std::string msg =
      error_of([&] { BlobStore::for_storage(repo / ".jp", repo.path()).put("x"); });
  EXPECT_NE(msg.find("outside"), std::string::npos) << msg;
  EXPECT_EQ(count_files(outside.path()), 0u);

  // A linked .jp is refused the same way, even before blobs/ exists: at
  // the store's first use, so that a command that never uses it (a commit
  // of other files) is not stopped by a link a teammate committed.
  TempDir repo2;
  fs::create_directory_symlink(outside.path(), repo2 / ".jp");
  const BlobStore linked = BlobStore::for_storage(repo2 / ".jp", repo2.path());
  for (const std::string& refused : {error_of([&] { linked.put("x"); }), error_of([&] { linked.entries(); }),
                                     error_of([&] { linked.get(Sha256::of("x")); })})
    EXPECT_NE(refused.find("outside"), std::string::npos) << refused;
  EXPECT_EQ(count_files(outside.path()), 0u);
  EXPECT_FALSE(fs::exists(outside.path() / "blobs"));
}

TEST(BlobStore, AllowsALinkThatStaysInside) {
  TempDir repo;
  fs::create_directories(repo / "elsewhere");
  fs::create_directories(repo / ".jp");
  fs::create_directory_symlink(repo / "elsewhere", repo / ".jp/blobs");
  BlobStore store = BlobStore::for_storage(repo / ".jp", repo.path());
  EXPECT_EQ(store.get(store.put("inside").digest), "inside");
}

void refuses_symlinks_inside_the_store() {
  TempDir outside, repo;
  BlobStore store = BlobStore::for_storage(repo / ".jp", repo.path());
  const Digest d = Sha256::of("victim");
  const std::string hex = d.hex();
  fs::create_directories(repo / ".jp/blobs");
  fs::create_directory_symlink(outside.path(), repo / (".jp/blobs/" + hex.substr(0, 2)));
  EXPECT_NE(error_of([&] { store.put("victim"); }).find("symlink"), std::string::npos);
  EXPECT_NE(error_of([&] { store.get(d); }).find("symlink"), std::string::npos);
  EXPECT_EQ(count_files(outside.path()), 0u);

  // A blob file that is a link to a real, valid blob elsewhere.
  TempDir repo2, other;
  BlobStore store2 = BlobStore::for_storage(repo2 / ".jp", repo2.path());
  BlobStore elsewhere = BlobStore::for_storage(other / ".jp", other.path());
  elsewhere.put("victim");
  fs::create_directories(store2.path_of(d).parent_path());
  fs::create_symlink(elsewhere.path_of(d), store2.path_of(d));
  EXPECT_NE(error_of([&] { store2.get(d); }).find("symlink"), std::string::npos);
  EXPECT_NE(error_of([&] { store2.put("victim"); }).find("not a regular file"), std::string::npos);
}

// A FIFO (or a folder) under a blob's name is not a blob: a read refuses it
// at once rather than wait for a writer that never comes (smudge, `cat`, a
// kept copy). A writer unblocks the read after 3 s should it wait.
TEST(BlobStore, AFifoUnderABlobNameIsRefusedWithoutWaiting) {
  TempDir t;
  const BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
  const Digest d = store.put("fifo victim").digest;
  fs::remove(store.path_of(d));
  ASSERT_EQ(::mkfifo(store.path_of(d).c_str(), 0600), 0);
  std::thread writer([path = store.path_of(d)] {
    std::this_thread::sleep_for(std::chrono::seconds(3));
    const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
    if (fd >= 0) ::close(fd);
  });
  const auto start = std::chrono::steady_clock::now();
  const std::string error = error_of([&] { store.get(d); });
  const auto waited = std::chrono::steady_clock::now() - start;
  writer.join();
  EXPECT_NE(error.find("not a regular file"), std::string::npos) << error;
  EXPECT_LT(waited, std::chrono::seconds(2));

  const Digest other = store.put("folder victim").digest;
  fs::remove(store.path_of(other));
  fs::create_directory(store.path_of(other));
  EXPECT_NE(error_of([&] { store.get(other); }).find("not a regular file"), std::string::npos);
}

TEST(BlobStore, RefusesSymlinksInsideTheStore) { refuses_symlinks_inside_the_store(); }

// The same on a kernel without openat2 (before 5.6, or a seccomp filter
// that refuses it): the store walks one component at a time.
TEST(BlobStore, RefusesSymlinksInsideTheStoreWithoutOpenat2) {
  Syscalls s = syscalls();
  static int calls = 0;
  s.openat2 = [](int, const char*, void*, size_t) -> long {
    ++calls;
    errno = ENOSYS;
    return -1;
  };
  ScopedSyscalls no_openat2(s);
  refuses_symlinks_inside_the_store();
  EXPECT_GT(calls, 0);
  TempDir t;
  BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
  EXPECT_TRUE(store.put("works without it").written);
  EXPECT_EQ(store.get(Sha256::of("works without it")).value(), "works without it");
  EXPECT_FALSE(store.put("works without it").written);
}

// Fault injection: the table starts from the real calls and overrides one.
Syscalls failing_writes(int err) {
  Syscalls s = syscalls();
  static int injected;
  injected = err;
  s.write = [](int, const void*, size_t) -> ssize_t {
    errno = injected;
    return -1;
  };
  return s;
}

TEST(BlobStore, FullDiskFailsCleanlyAndLeavesNoPartialFile) {
  TempDir t;
  BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
  {
    ScopedSyscalls fault(failing_writes(ENOSPC));
    const std::string msg = error_of([&] { store.put("does not fit"); });
    EXPECT_NE(msg.find("No space left on device"), std::string::npos) << msg;
  }
  EXPECT_EQ(count_files(t / ".jp/blobs"), 0u);  // no temporary file, no blob
  EXPECT_FALSE(store.contains(Sha256::of("does not fit")));
  EXPECT_TRUE(store.put("does not fit").written);  // and it works once space is back
}

TEST(BlobStore, FailedSyncOrRenameLeavesNoFile) {
  TempDir t;
  BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
  store.put("warm up the folders");
  Syscalls s = syscalls();
  s.fsync = [](int) {
    errno = EIO;
    return -1;
  };
  {
    ScopedSyscalls fault(s);
    EXPECT_NE(error_of([&] { store.put("never synced"); }).find("Input/output error"),
              std::string::npos);
  }
  EXPECT_EQ(count_files(t / ".jp/blobs"), 1u);
}

TEST(BlobStore, ReadOnlyStoreFailsWithAClearError) {
  TempDir t;
  BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
  store.put("existing");
  Syscalls s = syscalls();
  s.openat = [](int, const char*, int, mode_t) {
    errno = EROFS;
    return -1;
  };
  s.mkdirat = [](int, const char*, mode_t) {
    errno = EROFS;
    return -1;
  };
  {
    ScopedSyscalls fault(s);
    const std::string msg = error_of([&] { store.put("new content"); });
    EXPECT_NE(msg.find("Read-only file system"), std::string::npos) << msg;
    // Reading still works, and a present blob needs no write at all.
    EXPECT_EQ(store.get(Sha256::of("existing")), "existing");
    EXPECT_FALSE(store.put("existing").written);
  }
  EXPECT_EQ(count_files(t / ".jp/blobs"), 1u);
}

TEST(BlobStore, ReadOnlyPermissionsForAnOrdinaryUser) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores permission bits; covered by fault injection";
  TempDir t;
  BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
  store.put("warm");
  fs::permissions(t / ".jp/blobs", fs::perms::owner_read | fs::perms::owner_exec);
  EXPECT_THROW(store.put("new"), Error);
}

TEST(BlobStore, ConcurrentWritersOfTheSameBlobAgree) {
  TempDir t;
  const std::string content(200000, 'c');
  std::vector<pid_t> children;
  for (int i = 0; i < 6; ++i) {
    pid_t pid = ::fork();
    if (pid == 0) {
      try {
        BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
        for (int k = 0; k < 30; ++k) {
          store.put(content);
          store.put(content + std::to_string(k));
        }
        ::_exit(0);
      } catch (...) {
        ::_exit(1);
      }
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
  EXPECT_EQ(store.get(Sha256::of(content)), content);
  EXPECT_EQ(count_files(t / ".jp/blobs"), 31u);  // no temporary files left over
}

TEST(BlobStore, ExplicitStoreFolderIsItsOwnBoundary) {
  TempDir t;
  fs::create_directories(t / "userlocal");
  BlobStore store = BlobStore::for_storage(t / "userlocal", t / "userlocal");
  EXPECT_EQ(store.root(), t / "userlocal/blobs");
  EXPECT_TRUE(store.put("local").written);
}

}  // namespace
}  // namespace jpblob

namespace jpblob {
namespace {

TEST(BlobStore, SurvivesItsFolderBeingRemovedAndRecreated) {
  // A long-running filter process keeps one store for a whole git command,
  // during which git may delete and re-create .jp/blobs.
  test::TempDir t;
  BlobStore store = BlobStore::for_storage(t / ".jp", t.path());
  store.put("before");
  std::filesystem::remove_all(t / ".jp/blobs");
  EXPECT_FALSE(store.contains(Sha256::of("before")));
  const auto d = store.put("after").digest;
  EXPECT_TRUE(std::filesystem::is_regular_file(t / (".jp/blobs/" + blob_relative_path(d))));
  EXPECT_EQ(store.get(d), "after");
}

}  // namespace
}  // namespace jpblob
