// zksim serve over sockets against clients that misbehave: malformed,
// truncated, oversized and out-of-order packets, a client that never
// reads, a thousand connections opened and dropped. Each time the server
// closes that connection, as ZooKeeper does, and keeps serving the others;
// none leaves anything behind (`cons` lists only the asker). Under the
// sanitizer build (scripts/test.sh --sanitize) nothing crashes or leaks.
#include "frames.h"
#include "serve_thread.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace zksim::wire::test {
namespace {

using Clock = std::chrono::steady_clock;

// A bound on a wait that ends as soon as what it waits for happens (a
// reply, a close, the server forgetting a connection): one that long means
// the server is stuck, on any machine.
constexpr int kWaitMs = 60'000;

bool send_all(int fd, const Bytes& b) {
  return ::send(fd, b.data(), b.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(b.size());
}

Bytes frame_of_length(std::int32_t length, std::size_t body_bytes) {
  Bytes b;
  Writer(b).write_int(length);
  b.resize(b.size() + body_bytes, 0x5a);
  return b;
}

// A connection with a session, its connect response read.
struct Session {
  int fd = -1;
  explicit Session(int port, int timeout_ms = 4000) {
    fd = connect_tcp(port);
    EXPECT_TRUE(send_all(fd, connect_frame(0, std::string(16, '\0'), timeout_ms)));
    EXPECT_EQ(read_exactly(4 + 37).size(), 41u);
  }
  ~Session() {
    if (fd >= 0) ::close(fd);
  }
  Bytes read_exactly(std::size_t n, int timeout_ms = kWaitMs) {
    Bytes got;
    const auto end = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (got.size() < n && Clock::now() < end) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 50) <= 0) continue;
      std::uint8_t buf[65536];
      const ssize_t r = ::recv(fd, buf, std::min(sizeof buf, n - got.size()), 0);
      if (r <= 0) break;
      got.insert(got.end(), buf, buf + r);
    }
    return got;
  }
  // The reply header's err of a request answered with a header alone or more.
  std::int32_t call(std::int32_t xid, OpCode code, Body body) {
    EXPECT_TRUE(send_all(fd, request_frame(xid, code, std::move(body))));
    const Bytes len = read_exactly(4);
    if (len.size() < 4) return 1;
    const auto n = static_cast<std::size_t>(len[0] << 24 | len[1] << 16 | len[2] << 8 | len[3]);
    const Bytes rest = read_exactly(n);
    if (rest.size() < 16) return 1;
    return static_cast<std::int32_t>(rest[12] << 24 | rest[13] << 16 | rest[14] << 8 | rest[15]);
  }
  bool closed_by_server(int timeout_ms = kWaitMs) {
    bool eof = false;
    read_until_eof(fd, timeout_ms, &eof);
    return eof;
  }
};

// The server still serves: a new session creates and reads.
void still_serving(int port) {
  Session s(port);
  EXPECT_EQ(s.call(1, OpCode::Exists, ExistsRequest{"/", false}), 0);
}

// `cons` lists only the connection asking, within `timeout_ms`: every
// other one is gone from the server.
bool only_the_asker_left(int port, int timeout_ms = kWaitMs) {
  const auto end = Clock::now() + std::chrono::milliseconds(timeout_ms);
  std::string cons;
  while (Clock::now() < end) {
    cons = ask_tcp(port, "cons");
    if (std::count(cons.begin(), cons.end(), '\n') == 2) return true;  // one line, then the blank one
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ADD_FAILURE() << "still connected:\n" << cons;
  return false;
}

TEST(Robustness, GarbageInsteadOfAConnectRequestClosesThatConnection) {
  ServeThread serve;
  const int fd = connect_tcp(serve.port());
  ASSERT_TRUE(send_all(fd, frame_of_length(10, 10)));
  bool eof = false;
  EXPECT_EQ(read_until_eof(fd, kWaitMs, &eof), "");
  EXPECT_TRUE(eof);
  ::close(fd);
  still_serving(serve.port());
  EXPECT_TRUE(only_the_asker_left(serve.port()));
}

TEST(Robustness, ARequestBeforeTheHandshakeClosesTheConnection) {
  ServeThread serve;
  const int fd = connect_tcp(serve.port());
  ASSERT_TRUE(send_all(fd, request_frame(kPingXid, OpCode::Ping, PingRequest{})));
  bool eof = false;
  read_until_eof(fd, kWaitMs, &eof);
  EXPECT_TRUE(eof);
  ::close(fd);
  still_serving(serve.port());
}

// After the handshake a connect request reads as a request header of xid
// 0 and opcode 0, which Request.isValid refuses: Unimplemented, then close.
TEST(Robustness, ASecondConnectRequestIsAnUnknownOpcodeAndCloses) {
  ServeThread serve;
  Session s(serve.port());
  ASSERT_TRUE(send_all(s.fd, connect_frame()));
  const Bytes reply = s.read_exactly(20);  // the length and a header alone
  ASSERT_EQ(reply.size(), 20u);
  EXPECT_EQ(static_cast<std::int32_t>(reply[16] << 24 | reply[17] << 16 | reply[18] << 8 | reply[19]),
            static_cast<std::int32_t>(Error::Unimplemented));
  EXPECT_TRUE(s.closed_by_server());
  still_serving(serve.port());
}

TEST(Robustness, ATruncatedBodyIsAMarshallingErrorAndTheSessionGoesOn) {
  ServeThread serve;
  Session s(serve.port());
  Bytes b;
  Writer w(b);
  const std::size_t mark = w.begin_frame();
  w.write_int(1);
  w.write_int(static_cast<std::int32_t>(OpCode::Create));
  w.write_int(100);  // a path of 100 bytes that never come
  w.end_frame(mark);
  ASSERT_TRUE(send_all(s.fd, b));
  const Bytes reply = s.read_exactly(20);
  ASSERT_EQ(reply.size(), 20u);
  EXPECT_EQ(static_cast<std::int32_t>(reply[16] << 24 | reply[17] << 16 | reply[18] << 8 | reply[19]),
            static_cast<std::int32_t>(Error::MarshallingError));
  EXPECT_EQ(s.call(2, OpCode::Exists, ExistsRequest{"/", false}), 0);
}

TEST(Robustness, AFrameOverTheLimitClosesTheConnection) {
  ServeThread serve;
  for (const std::int32_t length : {0x100000, -1, INT32_MIN}) {
    Session s(serve.port());
    ASSERT_TRUE(send_all(s.fd, frame_of_length(length, 16)));
    EXPECT_TRUE(s.closed_by_server()) << length;
  }
  still_serving(serve.port());
  EXPECT_TRUE(only_the_asker_left(serve.port()));
}

TEST(Robustness, AFrameCutShortByAHangUpLeavesNothingBehind) {
  ServeThread serve;
  {
    Session s(serve.port());
    ASSERT_TRUE(send_all(s.fd, frame_of_length(100, 10)));
  }
  const int fd = connect_tcp(serve.port());
  ASSERT_TRUE(send_all(fd, Bytes{0, 0}));  // half a length before the handshake
  ::close(fd);
  still_serving(serve.port());
  EXPECT_TRUE(only_the_asker_left(serve.port()));
}

// Sends getData of a 1 MB node on `sink` for 1.5 s and never reads: at
// least 10 MB of replies asked for, past the loop's bound of unsent bytes.
void flood(const Session& sink) {
  ::fcntl(sink.fd, F_SETFL, ::fcntl(sink.fd, F_GETFL) | O_NONBLOCK);
  const Bytes get = request_frame(1, OpCode::GetData, GetDataRequest{"/big", false});
  const auto flood_end = Clock::now() + std::chrono::milliseconds(1500);
  std::size_t sent = 0;
  while (Clock::now() < flood_end) {
    const ssize_t n = ::send(sink.fd, get.data(), get.size(), MSG_NOSIGNAL);
    if (n > 0) sent += static_cast<std::size_t>(n);
    if (n < 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_GT(sent / get.size(), 10u);
}

// The lines of `cons`: one per connection, then the blank one.
long cons_lines(int port) {
  const std::string cons = ask_tcp(port, "cons");
  return std::count(cons.begin(), cons.end(), '\n');
}

// A client that sends and never reads holds up no one: once its unsent
// replies pass the loop's bound the connection is not read, and the others
// are served meanwhile. The sink's session (20 s) outlives the test, so
// that the reader is served while the sink is stuck, however slow the
// machine.
TEST(Robustness, AClientThatNeverReadsHoldsUpNoOne) {
  ServeOptions options = ServeThread::defaults();
  options.server.max_session_timeout_ms = 20'000;
  ServeThread serve(options);
  Session reader(serve.port());
  ASSERT_EQ(reader.call(1, OpCode::Create, CreateRequest{.path = "/big", .data = std::string(1000000, 'x')}), 0);
  Session sink(serve.port(), 20'000);
  flood(sink);
  EXPECT_EQ(reader.call(2, OpCode::Exists, ExistsRequest{"/big", false}), 0);
  EXPECT_EQ(cons_lines(serve.port()), 4);  // the reader, the sink, the asker, the blank line
}

// ... and its pings go unheard too: its session expires and the connection
// closes (a closing connection gets 2 s for its last bytes).
TEST(Robustness, AClientThatNeverReadsIsClosedWhenItsSessionExpires) {
  ServeThread serve;
  Session reader(serve.port());
  ASSERT_EQ(reader.call(1, OpCode::Create, CreateRequest{.path = "/big", .data = std::string(1000000, 'x')}), 0);
  Session sink(serve.port(), 600);
  flood(sink);
  const auto end = Clock::now() + std::chrono::milliseconds(kWaitMs);
  while (cons_lines(serve.port()) != 3 && Clock::now() < end) {  // the reader, the asker, the blank line
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(cons_lines(serve.port()), 3);
  reader.call(3, OpCode::CloseSession, CloseSessionRequest{});
  ::close(reader.fd);
  reader.fd = -1;
  EXPECT_TRUE(only_the_asker_left(serve.port()));
}

TEST(Robustness, AThousandConnectionsOpenedAndDroppedLeaveNothingBehind) {
  ServeThread serve;
  const Bytes connect = connect_frame(0, std::string(16, '\0'), 400);
  const Bytes ruok = {'r', 'u', 'o', 'k'};
  for (int batch = 0; batch < 4; ++batch) {
    std::vector<int> fds;
    for (int i = 0; i < 250; ++i) {
      const int fd = connect_tcp(serve.port());
      ASSERT_GE(fd, 0) << "connection " << batch * 250 + i;
      fds.push_back(fd);
      switch (i % 4) {
        case 0: break;                             // nothing
        case 1: send_all(fd, connect); break;      // a handshake, its response unread
        case 2: send_all(fd, Bytes(connect.begin(), connect.begin() + 20)); break;  // half of one
        case 3: send_all(fd, ruok); break;         // a word, its answer unread
      }
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (i % 2) {  // half reset, half closed in order
        const linger reset{1, 0};
        ::setsockopt(fds[i], SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
      }
      ::close(fds[i]);
    }
  }
  still_serving(serve.port());
  EXPECT_TRUE(only_the_asker_left(serve.port()));
  // The sessions they opened expire by their timeout (400 ms).
  const auto end = Clock::now() + std::chrono::milliseconds(kWaitMs);
  std::string mntr;
  while (Clock::now() < end) {
    mntr = ask_tcp(serve.port(), "mntr");
    if (mntr.find("zk_global_sessions\t0\n") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_NE(mntr.find("zk_global_sessions\t0\n"), std::string::npos) << mntr;
}

}  // namespace
}  // namespace zksim::wire::test
