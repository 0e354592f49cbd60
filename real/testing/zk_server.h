// A real ZooKeeper server for tests and benchmarks: Debian's zookeeper 3.8
// (standalone) on 127.0.0.1, a free port, its own temporary dataDir,
// tickTime 200, TTL nodes on, containers checked every second, log to a
// file in that directory. The server dies with the process that started it
// (PR_SET_PDEATHSIG), even when that process crashes.
#pragma once

#include <string>
#include <sys/types.h>

namespace zksim::test {

class ZkServer {
 public:
  ZkServer() = default;
  ~ZkServer() { stop(); }
  ZkServer(const ZkServer&) = delete;
  ZkServer& operator=(const ZkServer&) = delete;

  // Starts the server and waits until `srvr` answers "Mode: standalone".
  // Returns false (with a message in error()) if it does not within kServerStartMs (child_process.h).
  bool start();
  // SIGTERM, then waits until the process and the port are both gone.
  void stop();
  // "127.0.0.1:<port>"
  std::string hosts() const;
  int port() const { return port_; }
  const std::string& error() const { return error_; }
  // Sends a four-letter word ("srvr", "wchs", ...) and returns the reply
  // read within `timeout_ms` (empty if none).
  std::string four_letter(const char* word, int timeout_ms = 2000) const;

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
  std::string error_;
};

}  // namespace zksim::test
