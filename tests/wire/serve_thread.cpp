#include "serve_thread.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>

namespace zksim::wire::test {

ServeOptions ServeThread::defaults() {
  ServeOptions o;
  o.port = 0;
  o.control_port = 0;
  o.server.tick_ms = 200;
  o.container_check_ms = 1000;
  return o;
}

ServeThread::ServeThread(ServeOptions options) {
  std::promise<Listening> ports;
  auto listening = ports.get_future();
  loop_ = std::thread([this, options, &ports] {
    bool told = false;
    error_ = serve(options, stop_, [&](const Listening& l) {
      told = true;
      ports.set_value(l);
    });
    if (!told) ports.set_value(Listening{});
  });
  const Listening l = listening.get();
  port_ = l.port;
  control_port_ = l.control_port;
}

ServeThread::~ServeThread() { stop(); }

void ServeThread::stop() {
  stop_ = true;
  if (loop_.joinable()) loop_.join();
}

int connect_tcp(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string read_until_eof(int fd, int timeout_ms, bool* eof) {
  using Clock = std::chrono::steady_clock;
  const auto end = Clock::now() + std::chrono::milliseconds(timeout_ms);
  std::string got;
  if (eof) *eof = false;
  char buf[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
    if (left <= 0) break;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left)) <= 0) break;
    const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) {
      if (eof) *eof = true;
      break;
    }
    got.append(buf, static_cast<std::size_t>(n));
  }
  return got;
}

std::string ask_tcp(int port, const std::string& bytes, int timeout_ms) {
  const int fd = connect_tcp(port);
  if (fd < 0) return "(cannot connect)";
  std::string got;
  if (::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(bytes.size())) {
    got = read_until_eof(fd, timeout_ms);
  }
  ::close(fd);
  return got;
}

}  // namespace zksim::wire::test
