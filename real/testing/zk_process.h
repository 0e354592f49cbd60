// What starting Debian's ZooKeeper 3.8 by hand takes, shared by ZkServer
// (standalone) and ZkEnsemble (a quorum): the java command line,
// four-letter words, readiness. Ports, directories, the child process and
// stopping it are child_process.h's. The facts behind them are in
// docs/zk-3.8-findings.md.
#pragma once

#include "child_process.h"

#include <string>
#include <sys/types.h>

namespace zksim::test::zk {

// Sends a four-letter word and returns the reply read within `timeout_ms`
// (empty if none): a starting server keeps the socket open without answering.
std::string four_letter(int port, const char* word, int timeout_ms);

// Starts `java ... <main_class> <dir>/zoo.cfg` with stdout and stderr in
// <dir>/java.out and the log in <dir>/server.log at `log_level` (log4j:
// WARN, INFO), as spawn() does. Returns the pid, or -1.
pid_t spawn_java(const std::string& dir, const std::string& main_class, const std::string& log_level);

// Waits until the server answers `srvr` with a Mode line and returns that
// mode ("standalone", "leader", "follower"). Returns empty, with a message
// in `error`, if the process exits (then `pid` becomes -1) or `timeout_ms`
// passes.
std::string wait_mode(pid_t& pid, int port, int timeout_ms, std::string& error);
// The Mode of a `srvr` reply; empty if the server is not serving.
std::string mode_of(const std::string& srvr_reply);

}  // namespace zksim::test::zk
