// A real ZooKeeper server for tests: Debian's zookeeper 3.8 (standalone) on
// 127.0.0.1, a free port, its own temporary dataDir, tickTime 200, TTL nodes
// on, containers checked every second, log to a file in that directory.
//
// One server per test binary: ZkServerEnvironment starts it before the first
// test and stops it after the last; the server dies with the test process
// (PR_SET_PDEATHSIG) even when a test crashes.
#pragma once

#include <gtest/gtest.h>

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
  // Returns false (with a message in error()) if it does not within 60 s.
  bool start();
  // SIGTERM, then waits until the process and the port are both gone.
  void stop();
  // "127.0.0.1:<port>"
  std::string hosts() const;
  int port() const { return port_; }
  const std::string& error() const { return error_; }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::string dir_;
  std::string error_;
};

// The binary's one server; hosts() is empty until it started.
ZkServer& zk_server();

class ZkServerEnvironment : public ::testing::Environment {
 public:
  void SetUp() override;
  void TearDown() override;
};

}  // namespace zksim::test
