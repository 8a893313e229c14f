// The filter's record of what its outputs reference (core/lean/needs_log):
// what is written is read back whole, and a line that is cut short, garbled
// or says more than its count is left out, never read as something else.
#include "core/lean/needs_log.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "core/format/digest.hpp"
#include "test_support.hpp"

namespace jpblob {
namespace {

namespace fs = std::filesystem;

RecordedNeeds sample(int refs) {
  RecordedNeeds n;
  n.min_size = 7;
  n.size = 12345;
  for (int i = 0; i < refs; ++i)
    n.references.push_back({Sha256::of("blob " + std::to_string(i)),
                            i % 2 ? std::optional<std::uint64_t>{} : std::optional<std::uint64_t>(i * 1000)});
  return n;
}

const std::string kId(40, 'a'), kOther(40, 'b'), kSha256Id(64, 'c');

TEST(NeedsLog, WhatIsNotedIsReadBackAndTheLogsAreListed) {
  const test::TempDir dir;
  const fs::path folder = needs_log_folder(dir.path());
  {
    NeedsLog log(folder);
    EXPECT_FALSE(fs::exists(folder)) << "made before anything was noted";
    log.note(kId, sample(3));
    log.note(kSha256Id, sample(0));
  }
  NeedsLog(folder).note(kOther, sample(1));  // another process: a file of its own
  std::vector<fs::path> files;
  const auto read = read_needs_logs(folder, files);
  EXPECT_EQ(files.size(), 2u);
  EXPECT_EQ(list_needs_logs(folder).size(), 2u);
  ASSERT_EQ(read.size(), 3u);
  const RecordedNeeds& n = read.at(kId);
  EXPECT_EQ(n.kind, DocumentKind::Conversation);
  EXPECT_EQ(n.min_size, 7u);
  EXPECT_EQ(n.size, 12345u);
  ASSERT_EQ(n.references.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(n.references[i].digest, sample(3).references[i].digest);
    EXPECT_EQ(n.references[i].size, sample(3).references[i].size);
  }
  EXPECT_TRUE(read.at(kSha256Id).references.empty());
  // A FIFO, a folder and a link under a log's name are skipped, and the
  // FIFO does not hold the reader up (it has no writer).
  ASSERT_EQ(::mkfifo((folder / "fifo.log").c_str(), 0600), 0);
  fs::create_directory(folder / "folder.log");
  fs::create_symlink(files.front(), folder / "link.log");
  std::vector<fs::path> again;
  EXPECT_EQ(read_needs_logs(folder, again).size(), 3u);
  EXPECT_EQ(again.size(), 2u);
  // Another version's log is not read, but is listed (gc removes it).
  fs::copy_file(files.front(), folder / "n0-1-2.log");
  std::vector<fs::path> mine;
  read_needs_logs(folder, mine);
  EXPECT_EQ(mine.size(), 2u);
  EXPECT_EQ(list_needs_logs(folder).size(), 6u);
  fs::remove(folder / "n0-1-2.log");
  fs::remove(folder / "fifo.log");
  fs::remove(folder / "folder.log");
  fs::remove(folder / "link.log");
  remove_needs_logs(files);
  EXPECT_TRUE(list_needs_logs(folder).empty());
  files.clear();
  EXPECT_TRUE(read_needs_logs(dir / "absent", files).empty());
}

TEST(NeedsLog, ALineCutShortOrGarbledIsLeftOut) {
  const std::string whole = needs_log_line(kId, sample(2));
  std::unordered_map<std::string, RecordedNeeds> read;
  // Cut anywhere: nothing (a killed filter, a full disk).
  for (std::size_t cut = 0; cut < whole.size(); ++cut) {
    read.clear();
    parse_needs_log(std::string_view(whole).substr(0, cut), read);
    EXPECT_TRUE(read.empty()) << cut;
  }
  // A line cut, then a whole one: only the whole one.
  read.clear();
  parse_needs_log(whole.substr(0, 50) + "\n" + needs_log_line(kOther, sample(1)), read);
  ASSERT_EQ(read.size(), 1u);
  EXPECT_TRUE(read.count(kOther));
  const auto refused = [&](std::string line) {
    read.clear();
    parse_needs_log(line, read);
    return read.empty();
  };
  EXPECT_FALSE(refused(whole));
  std::string more = whole;
  more.insert(more.size() - 1, " " + std::string(64, 'd') + ":1");
  EXPECT_TRUE(refused(more)) << "a reference past the count";
  std::string fewer = whole;
  fewer.replace(fewer.find(" 2 "), 3, " 3 ");
  EXPECT_TRUE(refused(fewer)) << "a count past the references";
  EXPECT_TRUE(refused("AAAA" + whole.substr(4))) << "an id in upper case";
  EXPECT_TRUE(refused(kId + " x 7 1 0\n")) << "an unknown kind";
  EXPECT_TRUE(refused(kId + " c -7 1 0\n")) << "a negative size";
  EXPECT_TRUE(refused(kId + " c 7 1 0 \n")) << "a trailing space";
  EXPECT_TRUE(refused(kId + " c 7 1 1 " + std::string(64, 'G') + ":1\n")) << "a digest that is not hex";
  EXPECT_TRUE(refused(kId + " c 7 1 1 " + std::string(64, 'e') + ":x\n")) << "a size that is not a number";
  EXPECT_TRUE(refused(kId + " c 7 1 99999999999999999999999 \n")) << "a count past any line";
  EXPECT_FALSE(refused(kId + " c 7 1 1 " + std::string(64, 'e') + ":-\n")) << "no declared size";
}

}  // namespace
}  // namespace jpblob
