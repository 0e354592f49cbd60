#include "child_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

namespace zksim::test {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

sockaddr_in loopback(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

int connect_loopback(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a = loopback(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string ask_loopback(int port, std::string_view request, int timeout_ms) {
  int fd = connect_loopback(port);
  if (fd < 0) return {};
  std::string reply;
  if (::write(fd, request.data(), request.size()) == static_cast<ssize_t>(request.size())) {
    const auto end = Clock::now() + std::chrono::milliseconds(timeout_ms);
    char buf[1024];
    while (Clock::now() < end) {
      pollfd p{fd, POLLIN, 0};
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      const ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) break;
      reply.append(buf, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return reply;
}

std::vector<int> free_ports(int n) {
  std::vector<int> fds, ports;
  for (int i = 0; i < n; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = loopback(0);
    socklen_t len = sizeof a;
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0) {
      ports.push_back(ntohs(a.sin_port));
    } else {
      ports.push_back(0);
    }
    if (fd >= 0) fds.push_back(fd);
  }
  for (int fd : fds) ::close(fd);
  return ports;
}

std::string make_temp_dir(std::string_view name) {
  std::string tmpl = "/tmp/zksim-" + std::string(name) + "-XXXXXX";
  return ::mkdtemp(tmpl.data()) ? tmpl : std::string();
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

void remove_dir(const std::string& dir) {
  if (dir.empty() || std::getenv("ZKSIM_KEEP_SERVER_DIR")) return;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

pid_t spawn(const std::vector<std::string>& args, const std::string& output) {
  if (args.empty()) return -1;
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    // The server must not outlive the test process, however it ends.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

void stop_process(pid_t& pid, int port, int sig) {
  if (pid <= 0) return;
  ::kill(pid, sig);
  auto end = Clock::now() + std::chrono::seconds(10);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > end) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  pid = -1;
  auto port_end = Clock::now() + std::chrono::seconds(10);
  while (Clock::now() < port_end) {
    int fd = connect_loopback(port);
    if (fd < 0) break;
    ::close(fd);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace zksim::test
