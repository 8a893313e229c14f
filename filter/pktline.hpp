// pkt-line framing (gitprotocol-common(5)) for the long-running filter
// protocol: a 4-hex-digit length that counts itself, then the payload; 0000
// is a flush packet. A packet carries at most 65,516 payload bytes (65,520
// with its header). The writer never sends an empty data packet (0004).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jpblob {

inline constexpr std::size_t kPktMaxPayload = 65516;

// Reads packets from a file descriptor through a buffer. Errors (a
// truncated packet, a bad length, a read failure) throw Error.
class PktReader {
 public:
  explicit PktReader(int fd) : fd_(fd) {}

  // The next packet's payload, or nullopt for a flush packet. Throws on EOF.
  std::optional<std::string> read_packet();

  // Text packets up to the next flush, each without its trailing LF.
  // Returns nullopt when the stream ends cleanly before the first packet
  // (git closed the pipe between requests).
  std::optional<std::vector<std::string>> read_list_or_eof();
  std::vector<std::string> read_list();

  // Binary packets up to the next flush, concatenated.
  std::string read_content();

  // Whether a byte is buffered or arrives within `timeout_ms` (EOF counts
  // as arriving). Throws on a poll failure.
  bool readable_within(int timeout_ms);

 private:
  // Fills the buffer to at least `n` bytes; false on EOF before any byte
  // when `eof_ok`, throws on EOF otherwise.
  bool fill(std::size_t n, bool eof_ok);
  std::optional<std::string> read_packet(bool eof_ok, bool& eof);

  int fd_;
  std::string buf_;
  std::size_t pos_ = 0;
};

// Writes packets to a file descriptor it does not own, through a buffer.
// Nothing is guaranteed to reach git until send(), which writes everything
// buffered; packet writes also send by themselves once a megabyte is
// buffered. There is no flush(): flush_packet() only buffers "0000", so a
// response ends with flush_packet() and then send(). Any write failure
// throws Error. What is still buffered at destruction is dropped. Not thread
// safe.
class PktWriter {
 public:
  explicit PktWriter(int fd) : fd_(fd) {}
  ~PktWriter() = default;

  void text(std::string_view line);      // one packet: line + "\n"
  void content(std::string_view data);   // as many packets as needed; none when empty
  void flush_packet();                   // "0000"
  void send();                           // writes everything buffered

 private:
  void packet(std::string_view payload);
  int fd_;
  std::string buf_;
};

}  // namespace jpblob
