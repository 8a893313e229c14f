#include "core/base/safe_path.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "core/documents/document.hpp"
#include "core/base/error.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

// A base folder with an outside folder beside it that a link may point to.
struct SafePathTest : ::testing::Test {
  test::TempDir t;
  fs::path base = t / "repo";
  fs::path outside = t / "outside";
  SafePathTest() {
    test::write_text(base / ".jp/conversations/1-a/events.json", "[]");
    test::write_text(outside / "events.json", "secret");
    test::write_text(outside / "1-x/events.json", "secret");
  }
  SafeDir dir() const { return SafeDir::open(base); }
  // Every file below `outside`, with its content: must never change.
  std::string outside_state() const {
    std::string state;
    for (const auto& e : fs::recursive_directory_iterator(outside))
      if (e.is_regular_file()) state += e.path().string() + "=" + test::read_text(e.path()) + "\n";
    return state;
  }
};

bool refused(const std::function<void()>& fn, const std::string& link) {
  const std::string msg = test::error_of(fn);
  return msg.find("refusing " + link + ": it is a symbolic link") != std::string::npos;
}

TEST_F(SafePathTest, ReadsWritesAndListsOrdinaryFiles) {
  const SafeDir d = dir();
  EXPECT_EQ(d.read(".jp/conversations/1-a/events.json"), "[]");
  EXPECT_EQ(d.read(".jp/conversations/none/events.json"), std::nullopt);
  d.write_atomic(".jp/conversations/2-b/events.json", "[1]");
  EXPECT_EQ(test::read_text(base / ".jp/conversations/2-b/events.json"), "[1]");
  std::vector<fs::path> found;
  d.find_files(".jp/conversations", [](const std::string& n) { return n == "events.json"; }, found);
  EXPECT_EQ(found, (std::vector<fs::path>{".jp/conversations/1-a/events.json", ".jp/conversations/2-b/events.json"}));
  EXPECT_TRUE(d.remove(".jp/conversations/2-b/events.json"));
  EXPECT_FALSE(d.remove(".jp/conversations/2-b/events.json"));
  EXPECT_FALSE(d.lstat(".jp/conversations/2-b/events.json"));
  EXPECT_TRUE(d.lstat(".jp/conversations/1-a"));
}

TEST_F(SafePathTest, ALinkAtAnyComponentIsRefusedAndNothingOutsideIsTouched) {
  const std::string before = outside_state();
  // The first component, a middle one, and the last.
  fs::rename(base / ".jp", t / "jp-real");
  fs::create_directory_symlink(outside, base / ".jp");
  const SafeDir d = dir();
  EXPECT_TRUE(refused([&] { d.read(".jp/events.json"); }, ".jp"));
  EXPECT_TRUE(refused([&] { d.write_atomic(".jp/events.json", "x"); }, ".jp"));
  std::vector<fs::path> found;
  EXPECT_TRUE(refused([&] { d.find_files(".jp", [](const std::string&) { return true; }, found); }, ".jp"));
  fs::remove(base / ".jp");
  fs::rename(t / "jp-real", base / ".jp");

  fs::create_directory_symlink(outside, base / ".jp/conversations/2-link");
  EXPECT_TRUE(refused([&] { d.read(".jp/conversations/2-link/events.json"); }, ".jp/conversations/2-link"));
  EXPECT_TRUE(refused([&] { d.find_files(".jp/conversations", [](const std::string& n) { return n == "events.json"; }, found); },
                      ".jp/conversations/2-link"));
  fs::remove(base / ".jp/conversations/2-link");

  fs::create_symlink(outside / "events.json", base / ".jp/conversations/1-a/metadata.json");
  EXPECT_TRUE(refused([&] { d.read(".jp/conversations/1-a/metadata.json"); }, ".jp/conversations/1-a/metadata.json"));
  EXPECT_TRUE(refused([&] { d.write_atomic(".jp/conversations/1-a/metadata.json", "x"); },
                      ".jp/conversations/1-a/metadata.json"));
  // A link the walk would not read is skipped, never opened; one it would
  // read is refused.
  found.clear();
  d.find_files(".jp/conversations", [](const std::string& n) { return n == "events.json"; }, found);
  EXPECT_EQ(found, std::vector<fs::path>{".jp/conversations/1-a/events.json"});
  fs::remove(base / ".jp/conversations/1-a/events.json");
  fs::create_symlink(outside / "events.json", base / ".jp/conversations/1-a/events.json");
  EXPECT_TRUE(refused([&] { d.find_files(".jp/conversations", [](const std::string& n) { return n == "events.json"; }, found); },
                      ".jp/conversations/1-a/events.json"));
  // Even a link that stays inside the base is refused.
  fs::create_directory_symlink(base / ".jp/conversations/1-a", base / "inside-link");
  EXPECT_TRUE(refused([&] { d.read("inside-link/metadata.json"); }, "inside-link"));
  EXPECT_EQ(outside_state(), before);
}

TEST_F(SafePathTest, OneWalkListsDocumentsAndTheTemporariesBesideThem) {
  test::write_text(base / ".jp/conversations/1-a/.jpblob-tmp-1-2-abc", "partial");
  test::write_text(base / ".jp/sessions/deep/.jpblob-tmp-3-4-def", "partial");
  test::write_text(base / ".jp/.jpblob-tmp-5-6-top", "not below a document folder");
  const SafeDir d = dir();
  const std::vector<fs::path> documents{".jp/conversations/1-a/events.json"};
  EXPECT_EQ(list_documents(d, ".jp"), documents);
  std::vector<fs::path> temporaries;
  EXPECT_EQ(list_documents(d, ".jp", &temporaries), documents);
  EXPECT_EQ(temporaries, (std::vector<fs::path>{".jp/conversations/1-a/.jpblob-tmp-1-2-abc",
                                                ".jp/sessions/deep/.jpblob-tmp-3-4-def"}));
  // A link under a temporary's name is skipped by a plain listing and
  // refused by one that collects temporaries (which gc may delete).
  fs::create_symlink(outside / "events.json", base / ".jp/conversations/1-a/.jpblob-tmp-9-9-link");
  EXPECT_EQ(list_documents(d, ".jp"), documents);
  temporaries.clear();
  EXPECT_TRUE(refused([&] { list_documents(d, ".jp", &temporaries); }, ".jp/conversations/1-a/.jpblob-tmp-9-9-link"));
}

// 50,000 conversations in one folder must not take 50,000 descriptors:
// the walk holds one a level, so it works under a limit of 32 with 600
// folders (gc, verify and stats failed with "Too many open files").
TEST_F(SafePathTest, AWalkHoldsADescriptorALevelNotAFolder) {
  for (int i = 0; i < 600; ++i)
    test::write_text(base / ".jp/conversations" / (std::to_string(i) + "-c") / "events.json", "[]");
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  rlimit low = before;
  low.rlim_cur = 32;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &low), 0);
  std::vector<fs::path> found;
  std::string error;
  try {
    dir().find_files(".jp/conversations", [](const std::string& n) { return n == "events.json"; }, found);
  } catch (const std::exception& e) {
    error = e.what();
  }
  ::setrlimit(RLIMIT_NOFILE, &before);
  EXPECT_EQ(error, "");
  EXPECT_EQ(found.size(), 601u);  // and 1-a of the fixture
}

TEST_F(SafePathTest, RefusesEscapesFifosAndFolders) {
  const SafeDir d = dir();
  EXPECT_NE(test::error_of([&] { d.read("../outside/events.json"); }), "");
  EXPECT_NE(test::error_of([&] { d.read(outside / "events.json"); }), "");
  ASSERT_EQ(::mkfifo((base / "fifo").c_str(), 0600), 0);
  EXPECT_NE(test::error_of([&] { d.read("fifo"); }).find("not a regular file"), std::string::npos);
  EXPECT_NE(test::error_of([&] { d.read(".jp"); }).find("not a regular file"), std::string::npos);
  test::write_text(base / "plain", "x");
  EXPECT_NE(test::error_of([&] { d.read("plain/below"); }).find("not a folder"), std::string::npos);
}

TEST_F(SafePathTest, WritesKeepOrSetPermissions) {
  const SafeDir d = dir();
  d.write_atomic("hook", "#!/bin/sh\n", 0755);
  EXPECT_EQ(fs::status(base / "hook").permissions() & fs::perms::all, static_cast<fs::perms>(0755));
  d.write_atomic("hook", "#!/bin/sh\nexit 0\n");
  EXPECT_EQ(fs::status(base / "hook").permissions() & fs::perms::all, static_cast<fs::perms>(0755));
  EXPECT_EQ(test::read_text(base / "hook"), "#!/bin/sh\nexit 0\n");
}

TEST_F(SafePathTest, LocatesPathsInsideAndOutsideTheTop) {
  const auto inside = locate_safely(base / ".git/hooks", base);
  EXPECT_EQ(inside.base.path(), base);
  EXPECT_EQ(inside.rel, ".git/hooks");
  const auto elsewhere = locate_safely(outside / "hooks", base);
  EXPECT_EQ(elsewhere.base.path(), outside);
  EXPECT_EQ(elsewhere.rel, "hooks");
}

}  // namespace
}  // namespace jpblob
