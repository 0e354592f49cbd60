// What the tests that start a real server need whichever server it is
// (ZooKeeper, Redis, etcd): free loopback ports, a temporary directory, and a
// child process that dies with the test.
#pragma once

#include <netinet/in.h>
#include <string>
#include <string_view>
#include <sys/types.h>
#include <vector>

namespace zksim::test {

// The address 127.0.0.1:`port` (0: any free port, for bind).
sockaddr_in loopback(int port);
// A connected socket to 127.0.0.1:`port`, or -1.
int connect_loopback(int port);
// Sends `request` to 127.0.0.1:`port` and returns what comes back within
// `timeout_ms`, until the peer closes (empty if nothing, or no connection):
// a four-letter word, an HTTP/1.0 GET.
std::string ask_loopback(int port, std::string_view request, int timeout_ms);
// How long a server may take to start (or rejoin) and answer. A wait for it
// ends as soon as it answers (about 0.4 s for ZooKeeper here); the bound
// covers the slowest start of a loaded machine, a JVM's included.
inline constexpr int kServerStartMs = 60'000;

// `n` distinct ports free on 127.0.0.1 (all bound at once, then released).
std::vector<int> free_ports(int n);
// A new directory /tmp/zksim-<name>-XXXXXX, or empty.
std::string make_temp_dir(std::string_view name);
void write_file(const std::string& path, const std::string& text);
// Removes `dir` unless ZKSIM_KEEP_SERVER_DIR is set.
void remove_dir(const std::string& dir);

// Starts `args` (args[0] looked up in PATH) with stdout and stderr appended
// to `output`. The child dies with this process (PR_SET_PDEATHSIG), even
// when it crashes. Returns the pid, or -1.
pid_t spawn(const std::vector<std::string>& args, const std::string& output);

// Sends `sig` and waits until the process is gone (SIGKILL after 10 s) and
// nothing listens on `port` any more; `pid` becomes -1. No-op if pid <= 0.
void stop_process(pid_t& pid, int port, int sig);

}  // namespace zksim::test
