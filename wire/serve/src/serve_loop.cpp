#include "zksim/wire/serve_loop.h"

#include "zksim/wire/frame.h"
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
#include <pwd.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <vector>

namespace zksim::wire {
namespace {

constexpr int kPollCapMs = 100;
// A connection with this much unsent is not read until it drains: a client
// that never reads cannot grow the server without bound. Its pings go
// unread too, so its session expires, which closes the connection.
// (ZooKeeper's throttle likewise stops reading a connection; its replies
// it queues without a bound.) Frames are handed to the frontend one at a
// time for this, since one small request may ask for a megabyte.
constexpr std::size_t kMaxUnsent = 4 * 1024 * 1024;
// A connection being closed gets this long to take its last bytes.
constexpr TimeMs kCloseLingerMs = 2000;
// An answered control connection is written to, then read on, its bytes
// dropped, until the client closes its side (closing with unread bytes
// would send a reset, which may destroy the answer before the client reads
// it): for as long as bytes keep going out or coming in, kCloseLingerMs
// apart at most, and at most this long.
constexpr TimeMs kMaxDrainMs = 30000;
// After accept fails for want of file descriptors, the listener rests this
// long (it stays readable: polling it at once would spin).
constexpr TimeMs kAcceptRestMs = 50;

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

// A non-blocking listener on host:port; `port` is set to the port taken.
std::string listen_on(const std::string& host, int& port, Fd& listener) {
  listener = Fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (listener.get() < 0) return errno_text("socket");
  const int one = 1;
  setsockopt(listener.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  if (inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) return "not an IPv4 address: " + host;
  if (::bind(listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return errno_text("bind");
  if (::listen(listener.get(), SOMAXCONN) != 0) return errno_text("listen");
  if (!set_nonblocking(listener.get())) return errno_text("fcntl");
  socklen_t len = sizeof addr;
  getsockname(listener.get(), reinterpret_cast<sockaddr*>(&addr), &len);
  port = ntohs(addr.sin_port);
  return "";
}

struct Peer {
  Fd fd;
  std::string ip;
  int port = 0;
};
// Accepts one pending connection, non-blocking; nullopt when none is left.
std::optional<Peer> accept_one(int listener) {
  sockaddr_in peer{};
  socklen_t peer_len = sizeof peer;
  Peer p{Fd(::accept4(listener, reinterpret_cast<sockaddr*>(&peer), &peer_len, SOCK_NONBLOCK | SOCK_CLOEXEC))};
  if (p.fd.get() < 0) return std::nullopt;
  const int one = 1;
  setsockopt(p.fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  char ip[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &peer.sin_addr, ip, sizeof ip);
  p.ip = ip;
  p.port = ntohs(peer.sin_port);
  return p;
}

// A connection of either listener: the bytes to send, and whether to close
// once they are sent.
struct Client {
  Fd fd;
  Bytes in;  // read, not yet handed to the frontend (held back while `out` is full)
  Bytes out;
  bool closing = false;
  TimeMs close_by = 0;  // when closing: closed then, drained or not
  std::string http_in;  // the control interface's: the request head read so far
  TimeMs drain_until = 0;  // the control interface's: when answered, the end of its draining
};

// Accepts what is pending on `listener`; false when it ran out of file
// descriptors (the rest stay pending).
template <class F>
bool accept_all(int listener, F&& take) {
  for (;;) {
    auto peer = accept_one(listener);
    if (peer) {
      take(std::move(*peer));
      continue;
    }
    return errno != EMFILE && errno != ENFILE && errno != ENOBUFS && errno != ENOMEM;
  }
}

// What `envi` reports of this machine and process, by the JVM's property
// names: the host's name, the kernel's (os.arch as the JVM names x86_64),
// the user's and the working directory.
std::map<std::string, std::string> host_environment() {
  std::map<std::string, std::string> env;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0) env["host.name"] = host;
  utsname u{};
  if (::uname(&u) == 0) {
    env["os.name"] = u.sysname;
    env["os.arch"] = std::string_view(u.machine) == "x86_64" ? "amd64" : u.machine;
    env["os.version"] = u.release;
  }
  if (const passwd* pw = ::getpwuid(::geteuid())) {
    env["user.name"] = pw->pw_name;
    env["user.home"] = pw->pw_dir;
  }
  std::vector<char> cwd(4096);
  if (::getcwd(cwd.data(), cwd.size())) env["user.dir"] = cwd.data();
  return env;
}

}  // namespace

std::string serve(const ServeOptions& options, const std::atomic<bool>& stop,
                  const std::function<void(const Listening&)>& on_listening) {
  Listening ports{options.port, 0};
  Fd listener;
  if (std::string e = listen_on(options.host, ports.port, listener); !e.empty()) return e;
  Fd control_listener;
  if (options.control_port >= 0) {
    ports.control_port = options.control_port;
    if (std::string e = listen_on(options.host, ports.control_port, control_listener); !e.empty()) {
      return "control port: " + e;
    }
  }
  if (on_listening) on_listening(ports);

  Server server(options.server);
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
  frontend_options.reap_interval_ms = options.container_check_ms;
  frontend_options.client_port = ports.port;
  frontend_options.environment = host_environment();
  Frontend frontend(server, frontend_options);
  std::map<ConnectionId, Client> clients;
  std::map<int, Client> controls;  // by fd
  auto dispatch = [&](std::vector<Delivery> deliveries) {
    for (Delivery& d : deliveries) {
      auto it = clients.find(d.connection);
      if (it == clients.end()) continue;
      Client& c = it->second;
      c.out.insert(c.out.end(), d.bytes.begin(), d.bytes.end());
      if (d.close && !c.closing) {
        c.closing = true;
        c.close_by = now_ms() + kCloseLingerMs;
      }
    }
  };
  // Hands what a connection sent to the frontend, a frame at a time, while
  // its unsent bytes are under kMaxUnsent. Whatever is no complete frame
  // (a partial one, a four-letter word, a bad length) goes in whole: the
  // frontend decides.
  auto feed = [&](ConnectionId id, Client& c) {
    const auto max = static_cast<std::int32_t>(options.server.max_request_bytes);
    while (!c.in.empty() && !c.closing && c.out.size() < kMaxUnsent) {
      const FrameScan scan = scan_frame(c.in, max);
      const std::size_t n = scan.status == FrameStatus::Complete ? scan.consumed : c.in.size();
      dispatch(frontend.receive(id, ByteView(c.in).first(n), now_ms()));
      c.in.erase(c.in.begin(), c.in.begin() + static_cast<std::ptrdiff_t>(n));
    }
    if (c.closing) c.in.clear();
  };
  // Reads what a peer sent; false when the peer is gone.
  std::vector<std::uint8_t> buffer(64 * 1024);
  auto read_from = [&](Client& c, auto&& take) {
    const ssize_t n = ::recv(c.fd.get(), buffer.data(), buffer.size(), 0);
    if (n > 0) {
      take(ByteView(buffer.data(), static_cast<std::size_t>(n)));
      return true;
    }
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
  };
  // Sends what is queued; false when the peer is gone.
  auto write_to = [&](Client& c) {
    const ssize_t n = ::send(c.fd.get(), c.out.data(), c.out.size(), MSG_NOSIGNAL);
    if (n > 0) {
      c.out.erase(c.out.begin(), c.out.begin() + n);
      return true;
    }
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
  };
  // A control request, answered as soon as its head is in or cannot be one.
  auto control_request = [&](Client& c) {
    const HeadScan scan = scan_http_head(c.http_in);
    if (scan.verdict == HeadVerdict::Incomplete) return;
    HttpResponse response = http_refusal(HeadVerdict::NotHttp);
    if (scan.verdict != HeadVerdict::Complete) {
      response = http_refusal(scan.verdict);
    } else if (auto request = parse_http_head(std::string_view(c.http_in).substr(0, scan.size))) {
      ControlResult r = control(*request, frontend, now_ms(), options.draw);
      dispatch(std::move(r.deliveries));
      response = std::move(r.response);
    }
    const std::string bytes = encode_http(response);
    c.out.assign(bytes.begin(), bytes.end());
    c.closing = true;
    c.drain_until = now_ms() + kMaxDrainMs;
    c.close_by = std::min(now_ms() + kCloseLingerMs, c.drain_until);
    c.http_in.clear();
    c.http_in.shrink_to_fit();
  };
  // An answered control connection: sends the answer, then half-closes and
  // drops what the client still sends; false once done (or the peer is gone).
  auto answer_and_drain = [&](Client& c, short got) {
    bool moved = false;
    if (!c.out.empty() && (got & (POLLOUT | POLLERR | POLLHUP))) {
      const std::size_t unsent = c.out.size();
      if (!write_to(c)) return false;
      moved = c.out.size() < unsent;
      if (c.out.empty()) ::shutdown(c.fd.get(), SHUT_WR);
    }
    if (got & (POLLIN | POLLERR | POLLHUP)) {
      const ssize_t n = ::recv(c.fd.get(), buffer.data(), buffer.size(), 0);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return false;
      moved |= n > 0;
    }
    if (moved) c.close_by = std::min(now_ms() + kCloseLingerMs, c.drain_until);
    return true;
  };

  std::vector<pollfd> fds;
  std::vector<ConnectionId> ids;  // the protocol's connections, after the listeners
  std::vector<int> control_fds;   // then the control connections
  TimeMs accept_rest_until = 0;
  while (!stop.load()) {
    const bool accepting = now_ms() >= accept_rest_until;
    fds.assign({pollfd{accepting ? listener.get() : -1, POLLIN, 0},
                pollfd{accepting ? control_listener.get() : -1, POLLIN, 0}});
    ids.clear();
    control_fds.clear();
    for (const auto& [id, c] : clients) {
      short events = c.closing || c.out.size() >= kMaxUnsent ? 0 : POLLIN;
      if (!c.out.empty()) events |= POLLOUT;
      fds.push_back(pollfd{c.fd.get(), events, 0});
      ids.push_back(id);
    }
    for (const auto& [fd, c] : controls) {
      fds.push_back(pollfd{fd, static_cast<short>(c.out.empty() ? POLLIN : POLLIN | POLLOUT), 0});
      control_fds.push_back(fd);
    }
    int timeout = accepting ? kPollCapMs : static_cast<int>(kAcceptRestMs);
    if (const auto deadline = frontend.next_deadline()) {
      const TimeMs wait = *deadline - now_ms();
      timeout = static_cast<int>(std::max<TimeMs>(0, std::min<TimeMs>(timeout, wait)));
    }
    if (::poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) return errno_text("poll");
    dispatch(frontend.advance(now_ms()));

    for (std::size_t i = 0; i < ids.size(); ++i) {
      const short got = fds[i + 2].revents;
      auto it = clients.find(ids[i]);
      if (it == clients.end() || got == 0) continue;
      Client& c = it->second;
      bool gone = false;
      if ((got & (POLLIN | POLLHUP | POLLERR)) && !c.closing && c.out.size() < kMaxUnsent) {
        gone = !read_from(c, [&](ByteView bytes) {
          c.in.insert(c.in.end(), bytes.begin(), bytes.end());
          feed(ids[i], c);
        });
      }
      if (!gone && (got & POLLOUT) && !c.out.empty()) {
        gone = !write_to(c);
        if (!gone) feed(ids[i], c);  // what waited for room
      }
      if (gone) {
        frontend.lost(ids[i]);
        clients.erase(it);
      }
    }
    // Connections the frontend closed, once their last bytes are out or
    // their time is up (the frontend may close one while serving another: a
    // reconnect, an expiry).
    const TimeMs now = now_ms();
    std::erase_if(clients, [&](const auto& entry) {
      if (!entry.second.closing || (!entry.second.out.empty() && now < entry.second.close_by)) return false;
      frontend.lost(entry.first);
      return true;
    });
    std::erase_if(controls, [&](const auto& entry) { return now >= entry.second.close_by; });

    for (std::size_t i = 0; i < control_fds.size(); ++i) {
      const short got = fds[ids.size() + 2 + i].revents;
      auto it = controls.find(control_fds[i]);
      if (got == 0 || it == controls.end()) continue;
      Client& c = it->second;
      bool gone = false;
      if (c.closing) {
        gone = !answer_and_drain(c, got);
      } else if (got & (POLLIN | POLLHUP | POLLERR)) {
        gone = !read_from(c, [&](ByteView bytes) { c.http_in.append(bytes.begin(), bytes.end()); });
        if (!gone) control_request(c);
      }
      if (gone) controls.erase(it);
    }

    bool out_of_fds = false;
    if (fds[0].revents & POLLIN) {
      out_of_fds |= !accept_all(listener.get(), [&](Peer peer) {
        clients[frontend.open(peer.ip, peer.port, now_ms())].fd = std::move(peer.fd);
      });
    }
    if (fds[1].revents & POLLIN) {
      out_of_fds |= !accept_all(control_listener.get(), [&](Peer peer) {
        const int fd = peer.fd.get();
        Client& c = controls[fd];
        c.fd = std::move(peer.fd);
        // A control connection that never sends its request is dropped in time too.
        c.close_by = now_ms() + options.control_idle_ms;
      });
    }
    if (out_of_fds) accept_rest_until = now_ms() + kAcceptRestMs;
  }
  return "";
}

}  // namespace zksim::wire
