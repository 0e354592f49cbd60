#include "workers.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <numeric>

extern char** environ;

namespace zksim::cli {

Shard sub_shard(const Shard& shard, int j, int jobs) {
  return Shard{shard.index + shard.count * j, shard.count * jobs};
}

WorkerTotals::WorkerTotals(int jobs)
    : runs_(static_cast<std::size_t>(jobs)), violating_(static_cast<std::size_t>(jobs)) {}

void WorkerTotals::update(int worker, const nlohmann::json& p) {
  const auto j = static_cast<std::size_t>(worker);
  runs_[j] = p.value("runs", std::int64_t{0});
  violating_[j] = p.value("violating_runs", std::int64_t{0});
  if (!p.contains("probes") || !p["probes"].is_array()) return;
  for (const auto& name : p["probes"]) {
    if (name.is_string()) probes_.insert(name.get<std::string>());
  }
}

std::int64_t WorkerTotals::runs() const { return std::accumulate(runs_.begin(), runs_.end(), std::int64_t{0}); }

std::int64_t WorkerTotals::violating_runs() const {
  return std::accumulate(violating_.begin(), violating_.end(), std::int64_t{0});
}

void emit_worker_line(const char* kind, const nlohmann::json& body) {
  std::string line = nlohmann::json{{kind, body}}.dump() + "\n";
  std::fputs(line.c_str(), stdout);
  std::fflush(stdout);
}

namespace {

struct Worker {
  pid_t pid = -1;
  int fd = -1;
  std::string buffer;
  bool has_result = false;
  nlohmann::json result;
};

// Stops and reaps every worker still running (on an error path).
class Reaper {
 public:
  explicit Reaper(std::vector<Worker>& w) : workers_(w) {}
  ~Reaper() {
    for (Worker& w : workers_) {
      if (w.fd >= 0) close(w.fd);
      if (w.pid > 0) {
        kill(w.pid, SIGTERM);
        waitpid(w.pid, nullptr, 0);
      }
    }
  }

 private:
  std::vector<Worker>& workers_;
};

std::vector<std::string> without_parallel_options(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--jobs" || a == "--shard") {
      ++i;  // and its value
      continue;
    }
    if (a.starts_with("--jobs=") || a.starts_with("--shard=")) continue;
    out.push_back(a);
  }
  return out;
}

void start(Worker& w, std::vector<std::string> argv) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw UsageError(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  const int rc = posix_spawn(&w.pid, "/proc/self/exe", &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (rc != 0) {
    close(fds[0]);
    w.pid = -1;
    throw UsageError(fmt::format("cannot start a worker process: {}", std::strerror(rc)));
  }
  w.fd = fds[0];
}

void take_lines(Worker& w, int j, const std::function<void(int, const nlohmann::json&)>& on_progress) {
  std::size_t nl;
  while ((nl = w.buffer.find('\n')) != std::string::npos) {
    std::string line = w.buffer.substr(0, nl);
    w.buffer.erase(0, nl + 1);
    nlohmann::json j_line = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j_line.is_object() && j_line.contains("progress")) {
      on_progress(j, j_line["progress"]);
    } else if (j_line.is_object() && j_line.contains("result")) {
      w.result = j_line["result"];
      w.has_result = true;
    } else {
      throw UsageError(fmt::format("worker {} printed something unexpected: {}", j, line.substr(0, 80)));
    }
  }
}

}  // namespace

std::vector<nlohmann::json> run_workers(const std::vector<std::string>& args, const Shard& shard, int jobs,
                                        const std::function<void(int, const nlohmann::json&)>& on_progress) {
  std::vector<Worker> workers(static_cast<std::size_t>(jobs));
  Reaper reaper(workers);
  const std::vector<std::string> base = without_parallel_options(args);
  for (int j = 0; j < jobs; ++j) {
    std::vector<std::string> argv{"zksim"};
    argv.insert(argv.end(), base.begin(), base.end());
    argv.insert(argv.end(), {"--shard", sub_shard(shard, j, jobs).text(), "--worker"});
    start(workers[static_cast<std::size_t>(j)], std::move(argv));
  }
  int open_pipes = jobs;
  char chunk[65536];
  while (open_pipes > 0) {
    std::vector<pollfd> fds;
    std::vector<int> which;
    for (int j = 0; j < jobs; ++j) {
      if (workers[static_cast<std::size_t>(j)].fd >= 0) {
        fds.push_back(pollfd{workers[static_cast<std::size_t>(j)].fd, POLLIN, 0});
        which.push_back(j);
      }
    }
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw UsageError(fmt::format("waiting for workers: {}", std::strerror(errno)));
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      Worker& w = workers[static_cast<std::size_t>(which[i])];
      const ssize_t n = read(w.fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        close(w.fd);
        w.fd = -1;
        --open_pipes;
        continue;
      }
      w.buffer.append(chunk, static_cast<std::size_t>(n));
      take_lines(w, which[i], on_progress);
    }
  }
  std::vector<nlohmann::json> results;
  for (int j = 0; j < jobs; ++j) {
    Worker& w = workers[static_cast<std::size_t>(j)];
    int status = 0;
    waitpid(w.pid, &status, 0);
    w.pid = -1;
    if (!WIFEXITED(status)) throw UsageError(fmt::format("worker {} of {} died of signal {}", j, jobs, WTERMSIG(status)));
    if (WEXITSTATUS(status) != 0) throw UsageError(fmt::format("worker {} of {} failed with exit status {}", j, jobs, WEXITSTATUS(status)));
    if (!w.has_result) throw UsageError(fmt::format("worker {} of {} ended without a result", j, jobs));
    results.push_back(std::move(w.result));
  }
  return results;
}

}  // namespace zksim::cli
