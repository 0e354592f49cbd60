#include "zk_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

namespace zksim::test::zk {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

std::string four_letter(int port, const char* word, int timeout_ms) {
  return ask_loopback(port, std::string_view(word, 4), timeout_ms);
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
  return spawn(args, dir + "/java.out");
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

}  // namespace zksim::test::zk
