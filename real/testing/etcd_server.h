// A real etcd for tests: Debian's etcd-server 3.4 as a one-member cluster on
// 127.0.0.1, free client and peer ports, its own temporary data directory,
// default timing (so its minimum lease TTL is 2 s). The server dies with
// the process that started it (PR_SET_PDEATHSIG), even when that process
// crashes. Ports, temporary directories, spawning and stopping are
// zk_process's.
#pragma once

#include <string>
#include <sys/types.h>

namespace zksim::test {

class EtcdServer {
 public:
  EtcdServer() = default;
  ~EtcdServer() { stop(); }
  EtcdServer(const EtcdServer&) = delete;
  EtcdServer& operator=(const EtcdServer&) = delete;

  // Starts the server and waits until GET /health answers "health":"true"
  // (it has elected itself). Returns false (with a message in error()) if
  // it does not within kServerStartMs (child_process.h).
  bool start();
  // SIGTERM, then waits until the process and the client port are both gone.
  void stop();
  // "http://127.0.0.1:<client port>"; empty when not running.
  std::string endpoint() const;
  const std::string& error() const { return error_; }

 private:
  pid_t pid_ = -1;
  int client_port_ = 0;
  std::string dir_;
  std::string error_;
};

}  // namespace zksim::test
