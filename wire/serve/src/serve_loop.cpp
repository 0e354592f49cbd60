#include "zksim/wire/serve_loop.h"

#include "zksim/wire/frontend.h"

#include <arpa/inet.h>
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace zksim::wire {
namespace {

constexpr int kPollCapMs = 100;

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(Fd&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd_, o.fd_);
    return *this;
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

bool set_nonblocking(int fd) {
  const int flags = fcntl(fd, F_GETFL, 0);
  return flags >= 0 && fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0;
}

std::string errno_text(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

struct Client {
  Fd fd;
  Bytes out;
  bool closing = false;  // the frontend closed it: flush, then close
};

}  // namespace

std::string serve(const ServeOptions& options, const std::atomic<bool>& stop,
                  const std::function<void(int port)>& on_listening) {
  Fd listener(::socket(AF_INET, SOCK_STREAM, 0));
  if (listener.get() < 0) return errno_text("socket");
  const int one = 1;
  setsockopt(listener.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(options.port));
  if (inet_pton(AF_INET, options.host.c_str(), &addr.sin_addr) != 1) return "not an IPv4 address: " + options.host;
  if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return errno_text("bind");
  if (::listen(listener.get(), 64) != 0) return errno_text("listen");
  if (!set_nonblocking(listener.get())) return errno_text("fcntl");
  socklen_t len = sizeof addr;
  getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len);
  if (on_listening) on_listening(ntohs(addr.sin_port));

  Server server(options.server);
  std::map<ConnectionId, Client> clients;
  // The server's time: the wall clock's milliseconds since 1970 at the
  // start (ctime and mtime read as the real server's do), advanced by the
  // steady clock, so that a clock step cannot expire sessions.
  const auto start = std::chrono::steady_clock::now();
  const auto epoch_ms = static_cast<TimeMs>(
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count());
  auto now_ms = [&] {
    return epoch_ms + static_cast<TimeMs>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                              std::chrono::steady_clock::now() - start)
                                              .count());
  };
  FrontendOptions frontend_options;
  frontend_options.origin = epoch_ms;
  Frontend frontend(server, frontend_options);
  auto dispatch = [&](std::vector<Delivery> deliveries) {
    for (Delivery& d : deliveries) {
      auto it = clients.find(d.connection);
      if (it == clients.end()) continue;
      it->second.out.insert(it->second.out.end(), d.bytes.begin(), d.bytes.end());
      it->second.closing |= d.close;
    }
  };

  std::vector<pollfd> fds;
  std::vector<ConnectionId> ids;  // fds[i + 1] belongs to ids[i]
  std::vector<std::uint8_t> buffer(64 * 1024);
  while (!stop.load()) {
    fds.assign(1, pollfd{listener.get(), POLLIN, 0});
    ids.clear();
    for (const auto& [id, c] : clients) {
      short events = c.closing ? 0 : POLLIN;
      if (!c.out.empty()) events |= POLLOUT;
      fds.push_back(pollfd{c.fd.get(), events, 0});
      ids.push_back(id);
    }
    int timeout = kPollCapMs;
    if (const auto deadline = frontend.next_deadline()) {
      const TimeMs wait = *deadline - now_ms();
      timeout = static_cast<int>(std::max<TimeMs>(0, std::min<TimeMs>(timeout, wait)));
    }
    if (::poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) return errno_text("poll");
    dispatch(frontend.advance(now_ms()));

    for (std::size_t i = 0; i < ids.size(); ++i) {
      const short got = fds[i + 1].revents;
      auto it = clients.find(ids[i]);
      if (it == clients.end() || got == 0) continue;
      Client& c = it->second;
      bool gone = false;
      if ((got & (POLLIN | POLLHUP | POLLERR)) && !c.closing) {
        const ssize_t n = ::recv(c.fd.get(), buffer.data(), buffer.size(), 0);
        if (n > 0) {
          dispatch(frontend.receive(ids[i], ByteView(buffer.data(), static_cast<std::size_t>(n)), now_ms()));
        } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
          gone = true;
        }
      }
      if (!gone && (got & POLLOUT) && !c.out.empty()) {
        const ssize_t n = ::send(c.fd.get(), c.out.data(), c.out.size(), MSG_NOSIGNAL);
        if (n > 0) {
          c.out.erase(c.out.begin(), c.out.begin() + n);
        } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          gone = true;
        }
      }
      if (gone) {
        frontend.lost(ids[i]);
        clients.erase(it);
      }
    }
    // Connections the frontend closed, once their last bytes are out (the
    // frontend may close one while serving another: a reconnect, an expiry).
    std::erase_if(clients, [&](const auto& entry) {
      if (!entry.second.closing || !entry.second.out.empty()) return false;
      frontend.lost(entry.first);
      return true;
    });

    if (fds[0].revents & POLLIN) {
      for (;;) {
        sockaddr_in peer{};
        socklen_t peer_len = sizeof peer;
        Fd fd(::accept(listener.get(), reinterpret_cast<sockaddr*>(&peer), &peer_len));
        if (fd.get() < 0) break;
        if (!set_nonblocking(fd.get())) continue;
        setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        char ip[INET_ADDRSTRLEN] = {};
        inet_ntop(AF_INET, &peer.sin_addr, ip, sizeof ip);
        clients[frontend.open(ip, ntohs(peer.sin_port), now_ms())].fd = std::move(fd);
      }
    }
  }
  return "";
}

}  // namespace zksim::wire
