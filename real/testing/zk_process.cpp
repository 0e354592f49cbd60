#include "zk_process.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>
#include <utility>

namespace zksim::test::zk {
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

std::string four_letter(int port, const char* word, int timeout_ms) {
  int fd = connect_loopback(port);
  if (fd < 0) return {};
  std::string reply;
  if (::write(fd, word, 4) == 4) {
    auto end = Clock::now() + std::chrono::milliseconds(timeout_ms);
    char buf[1024];
    while (Clock::now() < end) {
      pollfd p{fd, POLLIN, 0};
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n <= 0) break;
      reply.append(buf, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return reply;
}

std::string make_temp_dir() {
  char tmpl[] = "/tmp/zksim-zk-XXXXXX";
  return ::mkdtemp(tmpl) ? std::string(tmpl) : std::string();
}

void write_file(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

void remove_dir(const std::string& dir) {
  if (dir.empty() || std::getenv("ZKSIM_KEEP_SERVER_DIR")) return;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

pid_t spawn_java(const std::string& dir, const std::string& main_class, const std::string& log_level) {
  write_file(dir + "/log4j.properties",
             "log4j.rootLogger=" + log_level + ", F\nlog4j.appender.F=org.apache.log4j.FileAppender\n"
             "log4j.appender.F.File=" + dir + "/server.log\n"
             "log4j.appender.F.layout=org.apache.log4j.PatternLayout\n"
             "log4j.appender.F.layout.ConversionPattern=%d %p %c{1}: %m%n\n");
  const std::string cp =
      "/usr/share/java/zookeeper.jar:/usr/share/java/zookeeper-jute.jar:"
      "/usr/share/java/slf4j-api.jar:/usr/share/java/slf4j-log4j12.jar:"
      "/usr/share/java/log4j-1.2.jar";
  std::vector<std::string> args = {
      "java", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", cp,
      "-Dlog4j.configuration=file:" + dir + "/log4j.properties",
      "-Dzookeeper.extendedTypesEnabled=true", "-Dznode.container.checkIntervalMs=1000",
      "-Dzookeeper.admin.enableServer=false", main_class, dir + "/zoo.cfg"};
  return spawn(std::move(args), dir + "/java.out");
}

pid_t spawn(std::vector<std::string> args, const std::string& out_path) {
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid == 0) {
    // The server must not outlive the test process, however it ends.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    int fd = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execvp(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

std::string mode_of(const std::string& reply) {
  const auto at = reply.find("Mode: ");
  if (at == std::string::npos) return {};
  const auto end = reply.find('\n', at);
  return reply.substr(at + 6, end == std::string::npos ? std::string::npos : end - at - 6);
}

std::string wait_mode(pid_t& pid, int port, int timeout_ms, std::string& error) {
  auto end = Clock::now() + std::chrono::milliseconds(timeout_ms);
  while (Clock::now() < end) {
    std::string mode = mode_of(four_letter(port, "srvr", 500));
    if (!mode.empty()) return mode;
    int status = 0;
    if (pid <= 0 || ::waitpid(pid, &status, WNOHANG) == pid) {
      pid = -1;
      error = "the server exited";
      return {};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  error = "the server did not answer srvr with a Mode within " + std::to_string(timeout_ms) + " ms";
  return {};
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

}  // namespace zksim::test::zk
