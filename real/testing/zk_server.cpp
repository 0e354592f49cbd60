// Starting and stopping Debian's ZooKeeper server by hand (no systemd); the
// command line and the readiness rule are in docs/zk-3.8-findings.md.
#include "zk_server.h"

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
#include <vector>

namespace zksim::test {
namespace {

using Clock = std::chrono::steady_clock;

int connect_to(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = 0;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    ::close(fd);
    return 0;
  }
  ::close(fd);
  return ntohs(a.sin_port);
}

// Sends a four-letter word and reads the reply for at most `timeout_ms`:
// a starting server keeps the socket open without answering.
std::string send_four_letter(int port, const char* word, int timeout_ms) {
  int fd = connect_to(port);
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

void write_file(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

}  // namespace

bool ZkServer::start() {
  char tmpl[] = "/tmp/zksim-zk-XXXXXX";
  if (!::mkdtemp(tmpl)) {
    error_ = "mkdtemp failed";
    return false;
  }
  dir_ = tmpl;
  port_ = free_port();
  write_file(dir_ + "/zoo.cfg",
             "tickTime=200\ninitLimit=10\nsyncLimit=5\ndataDir=" + dir_ + "/data\n" +
                 "clientPort=" + std::to_string(port_) + "\nclientPortAddress=127.0.0.1\n" +
                 "maxClientCnxns=0\n4lw.commands.whitelist=*\nadmin.enableServer=false\n");
  write_file(dir_ + "/log4j.properties",
             "log4j.rootLogger=WARN, F\nlog4j.appender.F=org.apache.log4j.FileAppender\n"
             "log4j.appender.F.File=" + dir_ + "/server.log\n"
             "log4j.appender.F.layout=org.apache.log4j.PatternLayout\n"
             "log4j.appender.F.layout.ConversionPattern=%d %p %c{1}: %m%n\n");
  const std::string cp =
      "/usr/share/java/zookeeper.jar:/usr/share/java/zookeeper-jute.jar:"
      "/usr/share/java/slf4j-api.jar:/usr/share/java/slf4j-log4j12.jar:"
      "/usr/share/java/log4j-1.2.jar";
  std::vector<std::string> args = {
      "java", "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", cp,
      "-Dlog4j.configuration=file:" + dir_ + "/log4j.properties",
      "-Dzookeeper.extendedTypesEnabled=true", "-Dznode.container.checkIntervalMs=1000",
      "-Dzookeeper.admin.enableServer=false",
      "org.apache.zookeeper.server.ZooKeeperServerMain", dir_ + "/zoo.cfg"};
  const std::string out = dir_ + "/java.out";
  pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ == 0) {
    // The server must not outlive the test process, however it ends.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execvp("java", argv.data());
    ::_exit(127);
  }
  if (pid_ < 0) {
    error_ = "fork failed";
    return false;
  }
  auto end = Clock::now() + std::chrono::seconds(60);
  while (Clock::now() < end) {
    if (send_four_letter(port_, "srvr", 500).find("Mode: standalone") != std::string::npos) return true;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      error_ = "the server exited; see " + out;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  error_ = "the server did not answer srvr within 60 s; see " + out;
  stop();
  return false;
}

void ZkServer::stop() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    auto end = Clock::now() + std::chrono::seconds(10);
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (Clock::now() > end) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    pid_ = -1;
    auto port_end = Clock::now() + std::chrono::seconds(10);
    while (Clock::now() < port_end) {
      int fd = connect_to(port_);
      if (fd < 0) break;
      ::close(fd);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  if (!dir_.empty() && !std::getenv("ZKSIM_KEEP_SERVER_DIR")) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  dir_.clear();
}

std::string ZkServer::four_letter(const char* word, int timeout_ms) const {
  return pid_ > 0 ? send_four_letter(port_, word, timeout_ms) : std::string();
}

std::string ZkServer::hosts() const {
  return pid_ > 0 ? "127.0.0.1:" + std::to_string(port_) : std::string();
}

}  // namespace zksim::test
