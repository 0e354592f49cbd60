// `zksim serve`'s loop on a free port in a thread of the test, and plain
// sockets to talk to it (or to any server on 127.0.0.1).
#pragma once

#include "zksim/wire/serve_loop.h"

#include <atomic>
#include <string>
#include <thread>

namespace zksim::wire::test {

class ServeThread {
 public:
  // Starts serving; port() is known once this returns. An empty error() if it serves.
  explicit ServeThread(ServeOptions options = defaults());
  ~ServeThread();  // stops and joins
  ServeThread(const ServeThread&) = delete;
  ServeThread& operator=(const ServeThread&) = delete;

  int port() const { return port_; }
  int control_port() const { return control_port_; }  // 0: none
  std::string hosts() const { return "127.0.0.1:" + std::to_string(port_); }
  // What serve() returned; valid after stop().
  const std::string& error() const { return error_; }
  void stop();

  // Port 0 (any), a control port (any), tickTime 200 and containers
  // checked every second, as the tests' real server.
  static ServeOptions defaults();

 private:
  std::atomic<bool> stop_{false};
  std::thread loop_;
  int port_ = 0;
  int control_port_ = 0;
  std::string error_;
};

// A blocking TCP connection to 127.0.0.1:port (-1 on failure), close-on-exec.
int connect_tcp(int port);
// Sends `bytes` on a fresh connection and reads until the server closes it
// or `timeout_ms` passes (a bound for a server that is stuck: the read
// ends when the server closes, as it does after each answer).
std::string ask_tcp(int port, const std::string& bytes, int timeout_ms = 60'000);
// Reads from `fd` until EOF or `timeout_ms`; `eof` says which.
std::string read_until_eof(int fd, int timeout_ms, bool* eof = nullptr);

}  // namespace zksim::wire::test
