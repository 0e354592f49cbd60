// A real ZooKeeper ensemble for tests: n of Debian's zookeeper 3.8 servers
// (QuorumPeerMain) on 127.0.0.1, each with its own client, quorum and
// election port and its own temporary dataDir (with its myid), tickTime
// 200, initLimit 10, syncLimit 5, every four-letter word allowed, the log
// at INFO in the server's directory. The servers die with the process
// that started them (PR_SET_PDEATHSIG), even when it crashes.
//
// Each server reaches its peers' quorum ports through a TcpGate of its own,
// so a test can stall the link from a follower to the leader: the follower
// keeps serving its clients from its replica but hears nothing from the
// leader (no proposal, commit or sync reply) until the stall ends. A stall
// must stay under syncLimit * tickTime (1 s): after that the leader drops
// the follower and the follower drops its clients to rejoin.
#pragma once

#include "child_process.h"
#include "tcp_gate.h"

#include <memory>
#include <string>
#include <sys/types.h>
#include <vector>

namespace zksim::test {

class ZkEnsemble {
 public:
  ZkEnsemble() = default;
  ~ZkEnsemble() { stop(); }
  ZkEnsemble(const ZkEnsemble&) = delete;
  ZkEnsemble& operator=(const ZkEnsemble&) = delete;

  // Starts `n` servers and waits until each serves as leader or follower.
  // Returns false (with a message in error()) if they do not within kServerStartMs (child_process.h).
  bool start(int n = 3);
  // SIGTERM to every server still running, then removes their directories.
  void stop();
  int size() const { return static_cast<int>(servers_.size()); }
  const std::string& error() const { return error_; }

  // "127.0.0.1:<client port of server i>"
  std::string hosts(int i) const;
  int port(int i) const;
  // The connect string of the servers `indexes`, in that order.
  std::string connect_string(const std::vector<int>& indexes) const;
  // The server whose `srvr` says "Mode: leader", or -1.
  int leader_index() const;
  // Server i's `srvr` Mode: "leader", "follower", or empty if it is not
  // serving (electing, syncing, stopped).
  std::string mode(int i) const;
  // Sends a four-letter word to server i; the reply read within `timeout_ms`.
  std::string four_letter(int i, const char* word, int timeout_ms = 2000) const;
  // Server i's log so far.
  std::string log(int i) const;

  // SIGKILL: a crash. The server writes nothing more (no snapshot, no
  // goodbye to its peers); the kernel closes its sockets, so its clients and
  // peers see the connections drop at once. Returns once the process and
  // its client port are gone.
  void kill(int i);
  // Starts server i again with the same dataDir, myid and ports (its log
  // goes on in the same file). Does not wait: see wait_serving.
  bool restart(int i);
  // Waits until server i serves as leader or follower; false after `timeout_ms`.
  bool wait_serving(int i, int timeout_ms = kServerStartMs);
  // Stalls (or releases) every quorum connection server i opened to its
  // peers: as a follower, its link to the leader. See the header comment.
  void stall_link(int i, bool on);

 private:
  struct Server {
    pid_t pid = -1;
    std::string dir;
    int client_port = 0;
    int quorum_port = 0;
    int election_port = 0;
    // This server's way to each peer's quorum port (null for itself).
    std::vector<std::unique_ptr<TcpGate>> links;
  };
  std::vector<Server> servers_;
  std::string error_;
};

}  // namespace zksim::test
