// The forwarder: one thread polling the listening socket and every pair.
#include "tcp_gate.h"

#include "child_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <map>

namespace zksim::test {
namespace {


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

TcpGate::TcpGate(int upstream_port, int wait_for_upstream_ms)
    : upstream_port_(upstream_port), wait_for_upstream_ms_(wait_for_upstream_ms) {
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
  quit_ = true;
  wake();
  thread_.join();
  ::close(listen_fd_);
  ::close(wake_[0]);
  ::close(wake_[1]);
}

void TcpGate::wake() {
  char c = 0;
  if (::write(wake_[1], &c, 1) != 1) {}
}

void TcpGate::stall(bool on) {
  stalled_ = on;
  wake();
}

void TcpGate::cut() {
  const int asked = ++cuts_asked_;
  wake();
  while (cuts_done_ < asked) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

std::string TcpGate::hosts() const { return "127.0.0.1:" + std::to_string(port_); }

void TcpGate::run() {
  using Clock = std::chrono::steady_clock;
  std::map<int, int> peer;  // both directions of every pair
  // Accepted connections waiting for the upstream to listen, with their deadline.
  std::map<int, Clock::time_point> waiting;
  auto drop = [&](int fd) {
    int other = peer[fd];
    peer.erase(fd);
    peer.erase(other);
    ::close(fd);
    ::close(other);
  };
  // Pairs `in` with a new upstream connection; false if the upstream refuses.
  auto pair_up = [&](int in) {
    int out = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in up = loopback(upstream_port_);
    if (::connect(out, reinterpret_cast<sockaddr*>(&up), sizeof up) != 0) {
      ::close(out);
      return false;
    }
    peer[in] = out;
    peer[out] = in;
    return true;
  };
  for (;;) {
    std::vector<pollfd> fds = {{wake_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    if (!stalled_) {
      for (const auto& [fd, other] : peer) fds.push_back({fd, POLLIN, 0});
    }
    if (::poll(fds.data(), fds.size(), waiting.empty() ? -1 : 20) < 0) continue;
    if (fds[0].revents) {
      char buf[64];
      if (::read(wake_[0], buf, sizeof buf) < 0) {}
      if (quit_) break;
      const int asked = cuts_asked_;
      if (cuts_done_ < asked) {
        for (auto it = peer.begin(); it != peer.end(); it = peer.begin()) drop(it->first);
        cuts_done_ = asked;
      }
      continue;
    }
    for (auto it = waiting.begin(); it != waiting.end();) {
      if (pair_up(it->first)) {
        it = waiting.erase(it);
      } else if (Clock::now() > it->second) {
        ::close(it->first);
        it = waiting.erase(it);
      } else {
        ++it;
      }
    }
    if (fds[1].revents & POLLIN) {
      int in = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (in >= 0 && held_) {
        ::close(in);
      } else if (in >= 0 && !pair_up(in)) {
        if (wait_for_upstream_ms_ > 0) {
          waiting[in] = Clock::now() + std::chrono::milliseconds(wait_for_upstream_ms_);
        } else {
          ::close(in);
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
  for (const auto& [fd, deadline] : waiting) ::close(fd);
}

}  // namespace zksim::test
