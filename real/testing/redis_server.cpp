#include "redis_server.h"

#include "child_process.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace zksim::test {
namespace {

using Clock = std::chrono::steady_clock;

// True when the server on `port` answers PING with +PONG within 500 ms (a
// server still loading its RDB file answers -LOADING).
bool pongs(int port) {
  int fd = connect_loopback(port);
  if (fd < 0) return false;
  std::string reply;
  if (::write(fd, "PING\r\n", 6) == 6) {
    pollfd p{fd, POLLIN, 0};
    char buf[64];
    if (::poll(&p, 1, 500) > 0) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0) reply.assign(buf, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return reply.starts_with("+PONG");
}

}  // namespace

bool RedisServer::start() {
  dir_ = make_temp_dir("redis");
  if (dir_.empty()) {
    error_ = "cannot create a temporary directory";
    return false;
  }
  port_ = free_ports(1)[0];
  return launch();
}

bool RedisServer::launch() {
  pid_ = spawn({"redis-server", "--port", std::to_string(port_), "--bind", "127.0.0.1", "--dir", dir_, "--save", "",
                "--appendonly", "no", "--daemonize", "no", "--logfile", ""},
               dir_ + "/redis.out");
  const auto end = Clock::now() + std::chrono::milliseconds(kServerStartMs);
  while (Clock::now() < end) {
    if (pongs(port_)) return true;
    int status = 0;
    if (pid_ <= 0 || ::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      error_ = "redis-server exited; see " + dir_ + "/redis.out (is Debian's redis-server installed?)";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  error_ = "redis-server did not answer PING within " + std::to_string(kServerStartMs / 1000) + " s";
  return false;
}

bool RedisServer::restart(int sig) {
  stop_process(pid_, port_, sig);
  return launch();
}

void RedisServer::stop() {
  stop_process(pid_, port_, SIGTERM);
  remove_dir(dir_);
  dir_.clear();
}

}  // namespace zksim::test
