// What starting Debian's ZooKeeper 3.8 by hand takes, shared by ZkServer
// (standalone) and ZkEnsemble (a quorum): free loopback ports, the java
// command line, four-letter words, readiness, stopping. The facts behind
// them are in docs/zk-3.8-findings.md.
#pragma once

#include <netinet/in.h>
#include <string>
#include <sys/types.h>
#include <vector>

namespace zksim::test::zk {

// The address 127.0.0.1:`port` (0: any free port, for bind).
sockaddr_in loopback(int port);
// A connected socket to 127.0.0.1:`port`, or -1.
int connect_loopback(int port);
// `n` distinct ports free on 127.0.0.1 (all bound at once, then released).
std::vector<int> free_ports(int n);
// Sends a four-letter word and returns the reply read within `timeout_ms`
// (empty if none): a starting server keeps the socket open without answering.
std::string four_letter(int port, const char* word, int timeout_ms);
// A new directory /tmp/zksim-zk-XXXXXX, or empty.
std::string make_temp_dir();
void write_file(const std::string& path, const std::string& text);
// Removes `dir` unless ZKSIM_KEEP_SERVER_DIR is set.
void remove_dir(const std::string& dir);

// Starts `args` (args[0] looked up in PATH) with stdout and stderr appended
// to `out_path`. The child dies with this process (PR_SET_PDEATHSIG), even
// when it crashes. Returns the pid, or -1.
pid_t spawn(std::vector<std::string> args, const std::string& out_path);

// Starts `java ... <main_class> <dir>/zoo.cfg` with stdout and stderr in
// <dir>/java.out and the log in <dir>/server.log at `log_level` (log4j:
// WARN, INFO). The child dies with this process (PR_SET_PDEATHSIG), even
// when it crashes. Returns the pid, or -1.
pid_t spawn_java(const std::string& dir, const std::string& main_class, const std::string& log_level);

// Waits until the server answers `srvr` with a Mode line and returns that
// mode ("standalone", "leader", "follower"). Returns empty, with a message
// in `error`, if the process exits (then `pid` becomes -1) or `timeout_ms`
// passes.
std::string wait_mode(pid_t& pid, int port, int timeout_ms, std::string& error);
// The Mode of a `srvr` reply; empty if the server is not serving.
std::string mode_of(const std::string& srvr_reply);

// Sends `sig` and waits until the process is gone (SIGKILL after 10 s) and
// nothing listens on `port` any more; `pid` becomes -1. No-op if pid <= 0.
void stop_process(pid_t& pid, int port, int sig);

}  // namespace zksim::test::zk
