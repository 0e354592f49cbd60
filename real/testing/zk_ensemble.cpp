// The quorum's configuration follows the ZooKeeper Administrator's Guide
// ("Running Replicated ZooKeeper"): the same server.N lines in every
// server's zoo.cfg, except that a server's peers' quorum ports are its own
// TcpGates in front of them, and its myid in dataDir.
#include "zk_ensemble.h"

#include "zk_process.h"

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace zksim::test {

bool ZkEnsemble::start(int n) {
  stop();
  error_.clear();
  const std::vector<int> ports = free_ports(3 * n);
  servers_.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    Server& s = servers_[i];
    s.dir = make_temp_dir("zk");
    if (s.dir.empty()) {
      error_ = "mkdtemp failed";
      return false;
    }
    s.client_port = ports[3 * i];
    s.quorum_port = ports[3 * i + 1];
    s.election_port = ports[3 * i + 2];
  }
  for (int i = 0; i < n; ++i) {
    Server& s = servers_[i];
    std::string peers;
    for (int j = 0; j < n; ++j) {
      const Server& p = servers_[j];
      // A peer not yet listening is waited for (initLimit * tickTime), as a
      // learner retries its connection to a new leader (Learner.connectToLeader):
      // a gate that accepted and then closed would send it back to election.
      s.links.push_back(i == j ? nullptr : std::make_unique<TcpGate>(p.quorum_port, 10 * 200));
      const int quorum = i == j ? p.quorum_port : s.links.back()->port();
      peers += "server." + std::to_string(j + 1) + "=127.0.0.1:" + std::to_string(quorum) + ":" +
               std::to_string(p.election_port) + "\n";
    }
    std::filesystem::create_directories(s.dir + "/data");
    write_file(s.dir + "/data/myid", std::to_string(i + 1) + "\n");
    write_file(s.dir + "/zoo.cfg",
                   "tickTime=200\ninitLimit=10\nsyncLimit=5\ndataDir=" + s.dir + "/data\n" +
                       "clientPort=" + std::to_string(s.client_port) + "\nclientPortAddress=127.0.0.1\n" +
                       "maxClientCnxns=0\n4lw.commands.whitelist=*\nadmin.enableServer=false\n" + peers);
  }
  for (int i = 0; i < n; ++i) {
    if (!restart(i)) return false;
  }
  for (int i = 0; i < n; ++i) {
    if (!wait_serving(i, kServerStartMs)) return false;
  }
  return true;
}

void ZkEnsemble::stop() {
  for (Server& s : servers_) {
    stop_process(s.pid, s.client_port, SIGTERM);
    s.links.clear();
    remove_dir(s.dir);
  }
  servers_.clear();
}

std::string ZkEnsemble::hosts(int i) const { return "127.0.0.1:" + std::to_string(port(i)); }

int ZkEnsemble::port(int i) const { return servers_.at(static_cast<std::size_t>(i)).client_port; }

std::string ZkEnsemble::connect_string(const std::vector<int>& indexes) const {
  std::string out;
  for (int i : indexes) {
    if (!out.empty()) out += ',';
    out += hosts(i);
  }
  return out;
}

std::string ZkEnsemble::mode(int i) const { return zk::mode_of(four_letter(i, "srvr", 500)); }

int ZkEnsemble::leader_index() const {
  for (int i = 0; i < size(); ++i) {
    if (mode(i) == "leader") return i;
  }
  return -1;
}

std::string ZkEnsemble::four_letter(int i, const char* word, int timeout_ms) const {
  return zk::four_letter(port(i), word, timeout_ms);
}

std::string ZkEnsemble::log(int i) const {
  std::ifstream in(servers_.at(static_cast<std::size_t>(i)).dir + "/server.log");
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void ZkEnsemble::kill(int i) {
  Server& s = servers_.at(static_cast<std::size_t>(i));
  stop_process(s.pid, s.client_port, SIGKILL);
}

bool ZkEnsemble::restart(int i) {
  Server& s = servers_.at(static_cast<std::size_t>(i));
  s.pid = zk::spawn_java(s.dir, "org.apache.zookeeper.server.quorum.QuorumPeerMain", "INFO");
  if (s.pid < 0) error_ = "fork failed";
  return s.pid > 0;
}

bool ZkEnsemble::wait_serving(int i, int timeout_ms) {
  Server& s = servers_.at(static_cast<std::size_t>(i));
  const std::string mode = zk::wait_mode(s.pid, s.client_port, timeout_ms, error_);
  if (mode == "leader" || mode == "follower") return true;
  if (!mode.empty()) error_ = "server " + std::to_string(i) + " answered Mode: " + mode;
  error_ += "; see " + s.dir;
  return false;
}

void ZkEnsemble::stall_link(int i, bool on) {
  for (auto& link : servers_.at(static_cast<std::size_t>(i)).links) {
    if (link) link->stall(on);
  }
}

}  // namespace zksim::test
