#include "pktline.hpp"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "core/base/buffer.hpp"
#include "core/base/error.hpp"
#include "core/base/fs.hpp"

namespace jpblob {

namespace {

int hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool PktReader::fill(std::size_t n, bool eof_ok) {
  if (pos_ > 0 && pos_ == buf_.size()) {
    buf_.clear();
    pos_ = 0;
  }
  while (buf_.size() - pos_ < n) {
    char chunk[1 << 16];
    const ssize_t got = ::read(fd_, chunk, sizeof chunk);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw errno_error("cannot read from git", errno);
    }
    if (got == 0) {
      if (eof_ok && buf_.size() == pos_) return false;
      throw Error("truncated pkt-line: git closed the pipe in the middle of a packet");
    }
    buf_.append(chunk, static_cast<std::size_t>(got));
  }
  return true;
}

std::optional<std::string> PktReader::read_packet(bool eof_ok, bool& eof) {
  eof = false;
  if (!fill(4, eof_ok)) {
    eof = true;
    return std::nullopt;
  }
  std::size_t len = 0;
  for (int i = 0; i < 4; ++i) {
    const int v = hex(buf_[pos_ + static_cast<std::size_t>(i)]);
    if (v < 0) throw Error("bad pkt-line: length '" + buf_.substr(pos_, 4) + "' is not hex");
    len = len << 4 | static_cast<std::size_t>(v);
  }
  pos_ += 4;
  if (len == 0) return std::nullopt;  // flush
  if (len < 4)
    throw Error("bad pkt-line: special packet " + std::to_string(len) +
                " is not part of the filter protocol");
  if (len - 4 > kPktMaxPayload)
    throw Error("bad pkt-line: a packet of " + std::to_string(len) + " bytes exceeds 65520");
  fill(len - 4, false);
  std::string payload = buf_.substr(pos_, len - 4);
  pos_ += len - 4;
  return payload;
}

bool PktReader::readable_within(int timeout_ms) {
  if (buf_.size() > pos_) return true;
  struct pollfd p {fd_, POLLIN, 0};
  for (;;) {
    const int r = ::poll(&p, 1, timeout_ms);
    if (r >= 0) return r > 0;
    if (errno != EINTR) throw errno_error("cannot wait for git", errno);
  }
}

std::optional<std::string> PktReader::read_packet() {
  bool eof;
  return read_packet(false, eof);
}

std::optional<std::vector<std::string>> PktReader::read_list_or_eof() {
  std::vector<std::string> lines;
  bool eof = false;
  for (bool first = true;; first = false) {
    auto p = read_packet(first, eof);
    if (eof) return std::nullopt;
    if (!p) return lines;
    if (!p->empty() && p->back() == '\n') p->pop_back();
    lines.push_back(std::move(*p));
  }
}

std::vector<std::string> PktReader::read_list() {
  bool eof;
  std::vector<std::string> lines;
  for (;;) {
    auto p = read_packet(false, eof);
    if (!p) return lines;
    if (!p->empty() && p->back() == '\n') p->pop_back();
    lines.push_back(std::move(*p));
  }
}

std::string PktReader::read_content() {
  std::string out;
  bool eof;
  while (auto p = read_packet(false, eof)) {
    reserve_large(out, out.size() + p->size());
    out += *p;
  }
  return out;
}

void PktWriter::packet(std::string_view payload) {
  static constexpr char kHex[] = "0123456789abcdef";
  const std::size_t len = payload.size() + 4;
  for (int shift = 12; shift >= 0; shift -= 4) buf_.push_back(kHex[(len >> shift) & 15]);
  buf_.append(payload);
  if (buf_.size() >= (1u << 20)) send();
}

void PktWriter::text(std::string_view line) {
  std::string payload(line);
  payload.push_back('\n');
  packet(payload);
}

void PktWriter::content(std::string_view data) {
  while (!data.empty()) {
    const std::size_t n = std::min(data.size(), kPktMaxPayload);
    packet(data.substr(0, n));
    data.remove_prefix(n);
  }
}

void PktWriter::flush_packet() { buf_.append("0000"); }

void PktWriter::send() {
  write_all(fd_, buf_, "the pipe to git");
  buf_.clear();
}

}  // namespace jpblob
