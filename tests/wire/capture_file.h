// Reads the captures under tests/wire/data (README.md there gives the
// format) and pairs requests with their replies.
#pragma once

#include "zksim/wire/jute.h"
#include "zksim/wire/opcode.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zksim::wire::test {

struct CapturedFrame {
  int conn = 0;
  bool to_server = false;
  Bytes bytes;          // the whole frame, length prefix included
  std::string probe;    // probes.hex: the probe this connection belongs to
  int line = 0;         // 1-based line in the file
  ByteView body() const { return ByteView(bytes).subspan(bytes.size() < 4 ? bytes.size() : 4); }
};

struct Capture {
  std::string name;
  std::vector<CapturedFrame> frames;  // in file order
  std::vector<int> closed_by_server;  // connections the server closed

  // Frames of one connection, one direction, in order.
  std::vector<const CapturedFrame*> of(int conn, bool to_server) const;
  std::vector<int> connections() const;
  // The connection of a probe (probes.hex).
  int probe_conn(const std::string& probe) const;
};

// REQUIRES: the file exists and parses; fails the test otherwise.
Capture load_capture(const std::string& file);

// A request (after the connect) and the reply with its xid on the same
// connection, if the server sent one.
struct Exchange {
  const CapturedFrame* request = nullptr;
  const CapturedFrame* reply = nullptr;
  std::int32_t xid = 0;
  std::int32_t type = 0;
};
std::vector<Exchange> exchanges(const Capture& c, int conn);
std::vector<Exchange> all_exchanges(const Capture& c);
// The n-th (0-based) exchange of that opcode across the capture.
std::optional<Exchange> find(const Capture& c, OpCode code, int nth = 0);

std::int32_t int_at(ByteView b, std::size_t offset);
std::string hex(ByteView b);

}  // namespace zksim::wire::test
