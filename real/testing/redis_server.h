// Debian's redis-server (7.0) started by a test: on 127.0.0.1, a free port,
// its own temporary directory, no save points and no AOF (a SAVE writes
// dump.rdb there on request), in the foreground as a child that dies with
// the test. Stopped, and its directory removed, by stop() or the destructor.
#pragma once

#include <string>
#include <sys/types.h>

namespace zksim::test {

class RedisServer {
 public:
  RedisServer() = default;
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;
  ~RedisServer() { stop(); }

  // Starts the server and waits until it answers PING with PONG (loading
  // dump.rdb first, if the directory has one). False, with error(), if it
  // did not within kServerStartMs (child_process.h).
  bool start();
  // Stops the process with `sig` (SIGKILL: a crash; nothing is saved either
  // way) and starts it again on the same port and directory.
  bool restart(int sig);
  void stop();

  int port() const { return port_; }
  const std::string& dir() const { return dir_; }
  const std::string& error() const { return error_; }

 private:
  bool launch();

  std::string dir_;
  std::string error_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace zksim::test
