// A TCP forwarder on 127.0.0.1 in front of a port, with a gate: while held,
// new connections are closed as soon as they are accepted (the connections
// already open keep working). It lets a test keep a client away from a
// server for a while without touching the client. It can also stall every
// open connection (nothing is forwarded, either way, until released; the
// bytes wait in the sockets' buffers) and cut them (both ends closed).
//
// By default a connection whose upstream refuses it is closed at once. With
// `wait_for_upstream_ms`, it waits that long for the upstream to listen,
// retrying every 20 ms: the caller, already connected to the gate, sees a
// slow peer rather than one that went away (a ZooKeeper learner retries a
// refused connection to its new leader, but gives up on one that closes).
#pragma once

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace zksim::test {

class TcpGate {
 public:
  explicit TcpGate(int upstream_port, int wait_for_upstream_ms = 0);
  ~TcpGate();
  TcpGate(const TcpGate&) = delete;
  TcpGate& operator=(const TcpGate&) = delete;

  // "127.0.0.1:<port of the gate>"
  std::string hosts() const;
  int port() const { return port_; }
  void hold(bool on) { held_ = on; }
  // While on, no byte is forwarded on any connection, old or new.
  void stall(bool on);
  // Closes both ends of every open connection; returns once they are closed.
  void cut();

 private:
  void run();
  void wake();
  int upstream_port_;
  int wait_for_upstream_ms_;
  int listen_fd_ = -1;
  int port_ = 0;
  int wake_[2] = {-1, -1};
  std::atomic<bool> held_{false};
  std::atomic<bool> stalled_{false};
  std::atomic<bool> quit_{false};
  std::atomic<int> cuts_asked_{0};
  std::atomic<int> cuts_done_{0};
  std::thread thread_;
};

}  // namespace zksim::test
