// The forwarder: one thread polling the listening socket and every pair.
#include "tcp_gate.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <map>

namespace zksim::test {
namespace {

sockaddr_in loopback(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

}  // namespace

TcpGate::TcpGate(int upstream_port) : upstream_port_(upstream_port) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a = loopback(0);
  socklen_t len = sizeof a;
  ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
  ::listen(listen_fd_, 16);
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&a), &len);
  port_ = ntohs(a.sin_port);
  if (::pipe2(wake_, O_CLOEXEC) != 0) wake_[0] = wake_[1] = -1;
  thread_ = std::thread([this] { run(); });
}

TcpGate::~TcpGate() {
  char c = 0;
  if (::write(wake_[1], &c, 1) != 1) {}
  thread_.join();
  ::close(listen_fd_);
  ::close(wake_[0]);
  ::close(wake_[1]);
}

std::string TcpGate::hosts() const { return "127.0.0.1:" + std::to_string(port_); }

void TcpGate::run() {
  std::map<int, int> peer;  // both directions of every pair
  auto drop = [&](int fd) {
    int other = peer[fd];
    peer.erase(fd);
    peer.erase(other);
    ::close(fd);
    ::close(other);
  };
  for (;;) {
    std::vector<pollfd> fds = {{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (const auto& [fd, other] : peer) fds.push_back({fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) continue;
    if (fds[0].revents) break;
    if (fds[1].revents & POLLIN) {
      int in = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (in >= 0 && held_) {
        ::close(in);
      } else if (in >= 0) {
        int out = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        sockaddr_in up = loopback(upstream_port_);
        if (::connect(out, reinterpret_cast<sockaddr*>(&up), sizeof up) == 0) {
          peer[in] = out;
          peer[out] = in;
        } else {
          ::close(in);
          ::close(out);
        }
      }
    }
    for (std::size_t i = 2; i < fds.size(); ++i) {
      if (!fds[i].revents || !peer.count(fds[i].fd)) continue;
      char buf[65536];
      ssize_t n = ::recv(fds[i].fd, buf, sizeof buf, 0);
      if (n <= 0 || !write_all(peer[fds[i].fd], buf, static_cast<std::size_t>(n))) {
        drop(fds[i].fd);
      }
    }
  }
  for (auto it = peer.begin(); it != peer.end(); it = peer.begin()) drop(it->first);
}

}  // namespace zksim::test
