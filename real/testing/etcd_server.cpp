// Starting and stopping Debian's etcd 3.4 by hand (no systemd).
#include "etcd_server.h"

#include "child_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>
#include <vector>

namespace zksim::test {
namespace {

using Clock = std::chrono::steady_clock;

// The reply to `GET <path>` on 127.0.0.1:`port`, read within `timeout_ms`
// (empty if none).
std::string http_get(int port, const std::string& path, int timeout_ms) {
  return ask_loopback(port, "GET " + path + " HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", timeout_ms);
}

}  // namespace

bool EtcdServer::start() {
  dir_ = make_temp_dir("etcd");
  if (dir_.empty()) {
    error_ = "mkdtemp failed";
    return false;
  }
  const std::vector<int> ports = free_ports(2);
  client_port_ = ports[0];
  const std::string client = "http://127.0.0.1:" + std::to_string(ports[0]);
  const std::string peer = "http://127.0.0.1:" + std::to_string(ports[1]);
  pid_ = spawn({"etcd", "--name", "zksim", "--data-dir", dir_ + "/data", "--listen-client-urls", client,
                    "--advertise-client-urls", client, "--listen-peer-urls", peer,
                    "--initial-advertise-peer-urls", peer, "--initial-cluster", "zksim=" + peer,
                    "--logger", "zap", "--log-level", "warn"},
                   dir_ + "/etcd.out");
  if (pid_ < 0) {
    error_ = "fork failed";
    return false;
  }
  const auto end = Clock::now() + std::chrono::milliseconds(kServerStartMs);
  while (Clock::now() < end) {
    if (http_get(client_port_, "/health", 1000).find("\"health\":\"true\"") != std::string::npos) return true;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      error_ = "etcd exited; see " + dir_ + "/etcd.out";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  error_ = "etcd did not report healthy within " + std::to_string(kServerStartMs / 1000) + " s; see " + dir_ + "/etcd.out";
  stop();
  return false;
}

void EtcdServer::stop() {
  stop_process(pid_, client_port_, SIGTERM);
  remove_dir(dir_);
  dir_.clear();
}

std::string EtcdServer::endpoint() const {
  return pid_ > 0 ? "http://127.0.0.1:" + std::to_string(client_port_) : std::string();
}

}  // namespace zksim::test
