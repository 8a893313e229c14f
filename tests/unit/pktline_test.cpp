#include "filter/pktline.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <thread>

#include "core/base/error.hpp"

namespace jpblob {
namespace {

// A pipe whose read end a PktReader consumes while a thread writes `bytes`.
struct Feed {
  int fds[2];
  std::thread writer;
  explicit Feed(std::string bytes) {
    if (::pipe(fds) != 0) throw std::runtime_error("pipe");
    writer = std::thread([this, b = std::move(bytes)] {
      std::size_t off = 0;
      while (off < b.size()) {
        ssize_t n = ::write(fds[1], b.data() + off, b.size() - off);
        if (n <= 0) break;
        off += static_cast<std::size_t>(n);
      }
      ::close(fds[1]);
    });
  }
  ~Feed() {
    writer.join();
    ::close(fds[0]);
  }
};

std::string written(const std::function<void(PktWriter&)>& f) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  std::string out;
  std::thread reader([&] {
    char buf[65536];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<std::size_t>(n));
  });
  {
    PktWriter w(fds[1]);
    f(w);
    w.send();
  }
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);
  return out;
}

TEST(PktLine, WritesTextFlushAndContent) {
  EXPECT_EQ(written([](PktWriter& w) {
              w.text("version=2");
              w.flush_packet();
            }),
            "000eversion=2\n0000");
  EXPECT_EQ(written([](PktWriter& w) { w.content(""); }), "");  // never 0004
}

TEST(PktLine, SplitsContentAtExactlyTheLimit) {
  for (std::size_t size : {kPktMaxPayload - 1, kPktMaxPayload, kPktMaxPayload + 1,
                           2 * kPktMaxPayload - 1, 2 * kPktMaxPayload, 2 * kPktMaxPayload + 1}) {
    const std::string data(size, 'x');
    const std::string wire = written([&](PktWriter& w) {
      w.content(data);
      w.flush_packet();
    });
    const std::size_t packets = (size + kPktMaxPayload - 1) / kPktMaxPayload;
    EXPECT_EQ(wire.size(), size + 4 * packets + 4) << size;
    char first[5];
    std::snprintf(first, sizeof first, "%04zx", std::min(size, kPktMaxPayload) + 4);
    EXPECT_EQ(wire.substr(0, 4), first);  // fff0 for a full packet
    Feed feed(wire);
    PktReader r(feed.fds[0]);
    EXPECT_EQ(r.read_content(), data);
  }
}

TEST(PktLine, ReadsListsAndEndOfStream) {
  Feed feed("0016git-filter-client\n000eversion=2\n0000");
  PktReader r(feed.fds[0]);
  auto list = r.read_list_or_eof();
  ASSERT_TRUE(list);
  EXPECT_EQ(*list, (std::vector<std::string>{"git-filter-client", "version=2"}));
  EXPECT_FALSE(r.read_list_or_eof());  // clean end between lists
}

TEST(PktLine, RefusesBrokenStreams) {
  for (const char* bad : {"000", "0016git-filter", "zzzz", "0003", "0001", "fff5",
                          "0009abc"}) {
    Feed feed(bad);
    PktReader r(feed.fds[0]);
    EXPECT_THROW(r.read_content(), Error) << bad;
  }
  // A stream cut inside a list is an error, not a clean end.
  Feed feed("000eversion=2\n");
  PktReader r(feed.fds[0]);
  EXPECT_THROW(r.read_list_or_eof(), Error);
}

}  // namespace
}  // namespace jpblob
