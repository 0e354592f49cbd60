// A TCP forwarder on 127.0.0.1 in front of the test server, with a gate:
// while held, new connections are closed as soon as they are accepted (the
// connections already open keep working). It lets a test keep a client
// away from the server for a while without touching the client.
#pragma once

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace zksim::test {

class TcpGate {
 public:
  explicit TcpGate(int upstream_port);
  ~TcpGate();
  TcpGate(const TcpGate&) = delete;
  TcpGate& operator=(const TcpGate&) = delete;

  // "127.0.0.1:<port of the gate>"
  std::string hosts() const;
  void hold(bool on) { held_ = on; }

 private:
  void run();
  int upstream_port_;
  int listen_fd_ = -1;
  int port_ = 0;
  int wake_[2] = {-1, -1};
  std::atomic<bool> held_{false};
  std::thread thread_;
};

}  // namespace zksim::test
