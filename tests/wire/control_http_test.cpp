// zksim serve's control interface over a socket, against requests that are
// too large or no HTTP at all: each gets its 4xx at once and a clean close
// (the answer, then the end of the stream, never a reset), and the server
// keeps no more of it than its limits. Control.* (control_test.cpp) has the
// same rules without sockets.
#include "serve_thread.h"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <string>
#include <thread>

namespace zksim::wire::test {
namespace {

// Long enough for anything the server does at once on any machine; far
// shorter than the idle close of the servers below, so that an answer
// read within it was not sent because the connection fell idle.
constexpr int kAnswerWaitMs = 60'000;

ServeOptions patient() {
  ServeOptions o = ServeThread::defaults();
  o.control_idle_ms = 3'600'000;
  return o;
}

// How a read of the server's answer ended.
struct Answer {
  std::string bytes;
  bool eof = false;    // the server closed its side after the answer
  bool reset = false;  // ECONNRESET instead
};

Answer read_answer(int fd) {
  Answer a;
  const timeval wait{kAnswerWaitMs / 1000, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  char buf[4096];
  for (;;) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n > 0) {
      a.bytes.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    a.eof = n == 0;
    a.reset = n < 0 && errno == ECONNRESET;
    return a;
  }
}

// Sends `head`, then `filler` bytes of 'a' (from a small buffer, so that
// this process does not hold them), then `tail`, from a thread of its own,
// while the answer is read. A send blocked for a minute gives up.
Answer send_and_read(int port, const std::string& head, std::size_t filler, const std::string& tail) {
  const int fd = connect_tcp(port);
  EXPECT_GE(fd, 0);
  const timeval wait{kAnswerWaitMs / 1000, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &wait, sizeof wait);
  std::thread sender([&] {
    auto send_all = [&](const char* p, std::size_t n) {
      while (n > 0) {
        const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
        if (k <= 0) return false;
        p += k;
        n -= static_cast<std::size_t>(k);
      }
      return true;
    };
    const std::string chunk(64 * 1024, 'a');
    if (!send_all(head.data(), head.size())) return;
    for (std::size_t left = filler; left > 0;) {
      const std::size_t n = std::min(left, chunk.size());
      if (!send_all(chunk.data(), n)) return;
      left -= n;
    }
    send_all(tail.data(), tail.size());
  });
  Answer a = read_answer(fd);
  sender.join();
  ::close(fd);
  return a;
}

std::string status_line(const std::string& answer) { return answer.substr(0, answer.find("\r\n")); }

// The resident memory of this process (the server's loop runs in it), in KiB.
long rss_kib() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("VmRSS:")) return std::stol(line.substr(6));
  }
  return -1;
}

TEST(ControlHttp, ARequestLineTooLongIsAnswered414AndClosed) {
  ServeThread serve(patient());
  const Answer a = send_and_read(serve.control_port(), "GET /commands/connections?x=", 100 * 1024, " HTTP/1.1\r\n\r\n");
  EXPECT_EQ(status_line(a.bytes), "HTTP/1.1 414 URI Too Long");
  EXPECT_NE(a.bytes.find(R"("error":"the request line is longer than 8192 bytes")"), std::string::npos) << a.bytes;
  EXPECT_TRUE(a.eof);
  EXPECT_FALSE(a.reset);
}

TEST(ControlHttp, AHeadTooLargeIsAnswered431AndClosedAndNotKept) {
  ServeThread serve(patient());
  const long before = rss_kib();
  const Answer a = send_and_read(serve.control_port(), "GET /commands/connections HTTP/1.1\r\nX-Big: ",
                                 20 * 1024 * 1024, "\r\n\r\n");
  EXPECT_EQ(status_line(a.bytes), "HTTP/1.1 431 Request Header Fields Too Large");
  EXPECT_TRUE(a.eof);
  EXPECT_FALSE(a.reset);
  // 20 MiB went through the server; it kept none of it.
  EXPECT_LT(rss_kib() - before, 8 * 1024);
}

// Answered at once: the server's idle close is an hour away.
TEST(ControlHttp, BytesNoRequestBeginsWithAreAnswered400AtOnce) {
  ServeThread serve(patient());
  for (const std::string& garbage : {std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11),  // TLS hello
                                    std::string("ruok\n"), std::string("GET /commands/connections HTTP/1.1\r\nX\x01")}) {
    const Answer a = send_and_read(serve.control_port(), garbage, 0, "");
    EXPECT_EQ(status_line(a.bytes), "HTTP/1.1 400 Bad Request") << garbage;
    EXPECT_NE(a.bytes.find(R"("error":"not an HTTP/1.x request")"), std::string::npos) << a.bytes;
    EXPECT_TRUE(a.eof);
  }
}

TEST(ControlHttp, APathThatIsNoZooKeeperPathIsABadRequest) {
  ServeThread serve(patient());
  const Answer a = send_and_read(serve.control_port(), "GET /commands/sequence?path=nopath&counter=5 HTTP/1.1\r\n\r\n", 0, "");
  EXPECT_EQ(status_line(a.bytes), "HTTP/1.1 400 Bad Request");
  EXPECT_NE(a.bytes.find(R"("error":"not a ZooKeeper path: nopath")"), std::string::npos) << a.bytes;
  EXPECT_TRUE(a.eof);
}

// A body the answer did not need is read and dropped: the close is clean.
TEST(ControlHttp, ABodyAfterTheHeadIsDroppedAndTheCloseIsClean) {
  ServeThread serve(patient());
  const Answer a = send_and_read(serve.control_port(), "POST /commands/connections HTTP/1.1\r\nContent-Length: 1048576\r\n\r\n",
                                 1024 * 1024, "");
  EXPECT_EQ(status_line(a.bytes), "HTTP/1.1 200 OK");
  EXPECT_TRUE(a.eof);
  EXPECT_FALSE(a.reset);
}

}  // namespace
}  // namespace zksim::wire::test
