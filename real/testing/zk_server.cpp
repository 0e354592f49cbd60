// Starting and stopping Debian's ZooKeeper server by hand (no systemd); the
// command line and the readiness rule are in docs/zk-3.8-findings.md.
#include "zk_server.h"

#include "zk_process.h"

#include <signal.h>

namespace zksim::test {

bool ZkServer::start() {
  dir_ = make_temp_dir("zk");
  if (dir_.empty()) {
    error_ = "mkdtemp failed";
    return false;
  }
  port_ = free_ports(1)[0];
  write_file(dir_ + "/zoo.cfg",
                 "tickTime=200\ninitLimit=10\nsyncLimit=5\ndataDir=" + dir_ + "/data\n" +
                     "clientPort=" + std::to_string(port_) + "\nclientPortAddress=127.0.0.1\n" +
                     "maxClientCnxns=0\n4lw.commands.whitelist=*\nadmin.enableServer=false\n");
  pid_ = zk::spawn_java(dir_, "org.apache.zookeeper.server.ZooKeeperServerMain", "WARN");
  if (pid_ < 0) {
    error_ = "fork failed";
    return false;
  }
  const std::string mode = zk::wait_mode(pid_, port_, kServerStartMs, error_);
  if (mode == "standalone") return true;
  if (!mode.empty()) error_ = "the server answered Mode: " + mode;
  error_ += "; see " + dir_ + "/java.out";
  stop();
  return false;
}

void ZkServer::stop() {
  stop_process(pid_, port_, SIGTERM);
  remove_dir(dir_);
  dir_.clear();
}

std::string ZkServer::four_letter(const char* word, int timeout_ms) const {
  return pid_ > 0 ? zk::four_letter(port_, word, timeout_ms) : std::string();
}

std::string ZkServer::hosts() const {
  return pid_ > 0 ? "127.0.0.1:" + std::to_string(port_) : std::string();
}

}  // namespace zksim::test
