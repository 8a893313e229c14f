#include "core/base/fs.hpp"

#include <gtest/gtest.h>

#include "core/base/error.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(AtomicFile, ReplacesWholeFileAndKeepsItsMode) {
  test::TempDir t;
  test::write_text(t / "f", "old");
  fs::permissions(t / "f", fs::perms::owner_read | fs::perms::owner_write | fs::perms::owner_exec);
  write_file_atomic(t / "f", "new content");
  EXPECT_EQ(test::read_text(t / "f"), "new content");
  EXPECT_TRUE((fs::status(t / "f").permissions() & fs::perms::owner_exec) != fs::perms::none);
  EXPECT_EQ(names_in(t.path()), std::vector<std::string>{"f"});
}

TEST(AtomicFile, AbandonedFileLeavesNothing) {
  test::TempDir t;
  Fd dir(::open(t.path().c_str(), O_RDONLY | O_DIRECTORY));
  {
    AtomicFile f(dir.get(), "target", "target");
    f.write("partial");
    EXPECT_EQ(names_in(t.path()).size(), 1u);  // the temporary file
    EXPECT_TRUE(names_in(t.path())[0].starts_with(AtomicFile::kTempPrefix));
  }
  EXPECT_TRUE(names_in(t.path()).empty());
}

TEST(AtomicFile, NoReplaceKeepsTheExistingFile) {
  test::TempDir t;
  test::write_text(t / "target", "first");
  Fd dir(::open(t.path().c_str(), O_RDONLY | O_DIRECTORY));
  AtomicFile f(dir.get(), "target", "target");
  f.write("second");
  EXPECT_FALSE(f.commit(AtomicFile::Replace::No));
  EXPECT_EQ(test::read_text(t / "target"), "first");
  EXPECT_EQ(names_in(t.path()), std::vector<std::string>{"target"});
}

TEST(AtomicFile, FailedWriteThrowsAndCleansUp) {
  test::TempDir t;
  Syscalls s = syscalls();
  s.write = [](int, const void*, size_t) -> ssize_t {
    errno = ENOSPC;
    return -1;
  };
  {
    ScopedSyscalls fault(s);
    EXPECT_THROW(write_file_atomic(t / "f", "data"), Error);
  }
  EXPECT_TRUE(names_in(t.path()).empty());
}

TEST(AtomicFile, FailedRenameThrowsAndCleansUp) {
  test::TempDir t;
  test::write_text(t / "f", "old");
  Syscalls s = syscalls();
  s.renameat = [](int, const char*, int, const char*) {
    errno = EXDEV;
    return -1;
  };
  {
    ScopedSyscalls fault(s);
    EXPECT_THROW(write_file_atomic(t / "f", "new"), Error);
  }
  EXPECT_EQ(test::read_text(t / "f"), "old");
  EXPECT_EQ(names_in(t.path()), std::vector<std::string>{"f"});
}

TEST(WriteAll, RetriesShortWrites) {
  test::TempDir t;
  Syscalls s = syscalls();
  s.write = [](int fd, const void* buf, size_t n) -> ssize_t {
    return ::write(fd, buf, n > 3 ? 3 : n);  // three bytes at a time
  };
  ScopedSyscalls fault(s);
  write_file_atomic(t / "f", "a longer piece of text");
  EXPECT_EQ(test::read_text(t / "f"), "a longer piece of text");
}

TEST(ReadFile, RefusesFilesOverTheLimit) {
  test::TempDir t;
  test::write_text(t / "f", std::string(100, 'x'));
  EXPECT_EQ(read_file(t / "f", 100).size(), 100u);
  EXPECT_THROW(read_file(t / "f", 99), Error);
  EXPECT_THROW(read_file(t / "missing"), Error);
}

}  // namespace
}  // namespace jpblob
