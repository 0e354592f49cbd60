#include "run_pool.h"

#include <cxxabi.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ZKSIM_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define ZKSIM_SANITIZED 1
#endif
#endif

namespace zksim::scenarios::detail {

namespace {

// Frames, child to parent: a kind byte, the request id (8 bytes), a length
// (4 bytes) and that many bytes. 'A' an answer; 'B' an answer after which
// the child ends, since it grew too much (its last 8 bytes the growth);
// 'C' the crash of the request being made (its bytes say how). Parent to
// child: the id, the length and the request's bytes.
constexpr std::size_t kHeader = 1 + 8 + 4;
// Answers stay far below what the answer pipe holds with a child's whole
// window unread, so a parent blocked writing a request never waits for a
// child blocked writing an answer.
constexpr int kAnswerPipeBytes = 1 << 20;

// Every pool pipe end this process holds, of every pool: a child closes all
// but its own, or a sibling's death would never close the parent's end.
std::vector<int>& pool_fds() {
  static std::vector<int> fds;
  return fds;
}
void forget_fd(int fd) { std::erase(pool_fds(), fd); }

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

bool read_all(int fd, char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

// write_all to a child's pipe that may be closed (the child died): EPIPE
// instead of this process's death by SIGPIPE, which is blocked for the
// write and taken back if it came, so the caller's own handling stays.
bool write_to_child(int fd, const char* p, std::size_t n) {
  sigset_t pipe_only, before;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  sigset_t pending;
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  pthread_sigmask(SIG_BLOCK, &pipe_only, &before);
  const bool ok = write_all(fd, p, n);
  if (!ok && errno == EPIPE && !was_pending) {
    const timespec now{0, 0};
    while (sigtimedwait(&pipe_only, nullptr, &now) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &before, nullptr);
  return ok;
}

void put_header(char* out, char kind, std::uint64_t id, std::uint32_t length) {
  out[0] = kind;
  std::memcpy(out + 1, &id, 8);
  std::memcpy(out + 9, &length, 4);
}

std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

// The child's state its crash handler reads: async-signal-safe to read.
int g_answer_fd = -1;
volatile std::uint64_t g_request = 0;
char g_last_words[512];

void set_last_words(const char* text) {
  std::size_t n = std::min(std::strlen(text), sizeof g_last_words - 1);
  std::memcpy(g_last_words, text, n);
  g_last_words[n] = '\0';
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGILL: return "SIGILL";
    case SIGFPE: return "SIGFPE";
    case SIGABRT: return "SIGABRT";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    default: return nullptr;
  }
}

void crash_handler(int sig) {
  char frame[kHeader + 600];
  char* text = frame + kHeader;
  std::size_t n = 0;
  auto add = [&](const char* s) {
    while (*s && n < 590) text[n++] = *s++;
  };
  const char* name = signal_name(sig);
  add(name ? name : "a fatal signal");
  if (g_last_words[0]) {
    add(": ");
    add(g_last_words);
  }
  put_header(frame, 'C', g_request, static_cast<std::uint32_t>(n));
  write_all(g_answer_fd, frame, kHeader + n);
  signal(sig, SIG_DFL);
  raise(sig);
}

// std::terminate in the child: the exception that escaped, if any, becomes
// the crash's last words.
void terminate_handler() {
  if (std::exception_ptr e = std::current_exception()) {
    std::string what = "an exception";
    const char* mangled = abi::__cxa_current_exception_type() ? abi::__cxa_current_exception_type()->name() : nullptr;
    int status = 0;
    char* type = mangled ? abi::__cxa_demangle(mangled, nullptr, nullptr, &status) : nullptr;
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      what = fmt::format("exception {}: {}", type ? type : "std::exception", x.what());
    } catch (...) {
      what = fmt::format("exception {}", type ? type : "of an unknown type");
    }
    std::free(type);
    set_last_words(what.c_str());
  } else {
    set_last_words("std::terminate called");
  }
  std::abort();
}

[[noreturn]] void child_main(int from_parent, int to_parent, const RunPool::Body& body, const Limits& limits) {
  g_answer_fd = to_parent;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() == 1) _exit(0);  // the parent is gone already
  signal(SIGPIPE, SIG_IGN);
  static char alt_stack[1 << 16];  // a stack overflow's handler needs a stack of its own
  stack_t ss{};
  ss.ss_sp = alt_stack;
  ss.ss_size = sizeof alt_stack;
  sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = crash_handler;
  sa.sa_flags = SA_ONSTACK;
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT}) sigaction(sig, &sa, nullptr);
  std::set_terminate(terminate_handler);
#ifndef ZKSIM_SANITIZED
  rlimit as{};
  if (getrlimit(RLIMIT_AS, &as) == 0) {
    std::uint64_t now = 0, unused = 0;
    std::ifstream("/proc/self/statm") >> now >> unused;
    const rlim_t cap = now * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE)) + limits.address_space_bytes;
    if (as.rlim_max == RLIM_INFINITY || cap < as.rlim_max) {
      as.rlim_cur = cap;
      setrlimit(RLIMIT_AS, &as);
    }
  }
#endif
  const std::uint64_t start = resident_bytes();
  std::uint64_t made = 0;
  char header[12];
  std::string request;
  while (read_all(from_parent, header, sizeof header)) {
    std::uint64_t id = 0;
    std::uint32_t length = 0;
    std::memcpy(&id, header, 8);
    std::memcpy(&length, header + 8, 4);
    request.resize(length);
    if (!read_all(from_parent, request.data(), length)) break;
    g_request = id;
    g_last_words[0] = '\0';
    std::string answer = body(request);
    char kind = 'A';
    if (++made % 16 == 0) {
      const std::uint64_t now = resident_bytes();
      if (now > start && now - start > limits.recycle_growth_bytes) {
        kind = 'B';
        const std::uint64_t growth = now - start;
        answer.append(reinterpret_cast<const char*>(&growth), sizeof growth);
      }
    }
    std::string frame(kHeader, '\0');
    put_header(frame.data(), kind, id, static_cast<std::uint32_t>(answer.size()));
    frame += answer;
    if (!write_all(to_parent, frame.data(), frame.size()) || kind == 'B') break;
  }
  _exit(0);
}

std::string death_of(int status) {
  if (WIFSIGNALED(status)) {
    const char* name = signal_name(WTERMSIG(status));
    return name ? std::string(name) : fmt::format("signal {}", WTERMSIG(status));
  }
  return fmt::format("exit status {}", WEXITSTATUS(status));
}

}  // namespace

RunPool::RunPool(int children, Body body, Limits limits, int window)
    : body_(std::move(body)), limits_(limits), window_(std::max(window, 1)),
      children_(static_cast<std::size_t>(std::max(children, 1))) {}

RunPool::~RunPool() {
  for (Child& c : children_) stop(c);
}

void RunPool::start(Child& c) {
  int down[2], up[2];
  if (pipe2(down, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("cannot make a pipe: {}", std::strerror(errno)));
  if (pipe2(up, O_CLOEXEC) != 0) {
    close(down[0]);
    close(down[1]);
    throw std::runtime_error(fmt::format("cannot make a pipe: {}", std::strerror(errno)));
  }
  fcntl(up[1], F_SETPIPE_SZ, kAnswerPipeBytes);
  std::fflush(nullptr);  // what this process printed is not printed again by the child
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {down[0], down[1], up[0], up[1]}) close(fd);
    throw std::runtime_error(fmt::format("cannot start a child process: {}", std::strerror(errno)));
  }
  if (pid == 0) {
    for (int fd : pool_fds()) close(fd);
    close(down[1]);
    close(up[0]);
    child_main(down[0], up[1], body_, limits_);
  }
  close(down[0]);
  close(up[1]);
  c.pid = pid;
  c.to = down[1];
  c.from = up[0];
  pool_fds().push_back(c.to);
  pool_fds().push_back(c.from);
}

void RunPool::stop(Child& c) {
  if (c.to >= 0) {
    forget_fd(c.to);
    close(c.to);
    c.to = -1;
  }
  if (c.from >= 0) {
    forget_fd(c.from);
    close(c.from);
    c.from = -1;
  }
  if (c.pid > 0) {
    kill(c.pid, SIGKILL);
    waitpid(c.pid, nullptr, 0);
    c.pid = -1;
  }
  c.buffer.clear();
}

void RunPool::send(Child& c, Request r) {
  if (c.pid < 0) start(c);
  std::string frame(12, '\0');
  const auto length = static_cast<std::uint32_t>(r.bytes.size());
  std::memcpy(frame.data(), &r.id, 8);
  std::memcpy(frame.data() + 8, &length, 4);
  frame += r.bytes;
  // A child that died meanwhile: what it had is sent again when its end is read.
  write_to_child(c.to, frame.data(), frame.size());
  c.sent.push_back(std::move(r));
}

void RunPool::submit(std::uint64_t id, std::string request) {
  queued_.push_back(Request{id, std::move(request)});
  ++pending_;
  feed();
}

void RunPool::feed() {
  while (!queued_.empty()) {
    Child* best = nullptr;
    for (Child& c : children_) {
      if (c.suspect || static_cast<int>(c.sent.size()) >= window_) continue;
      if (!best || c.sent.size() < best->sent.size()) best = &c;
    }
    if (!best) return;
    Request r = std::move(queued_.front());
    queued_.pop_front();
    send(*best, std::move(r));
  }
}

void RunPool::take_frames(Child& c) {
  std::size_t at = 0;
  while (c.buffer.size() - at >= kHeader) {
    const char kind = c.buffer[at];
    std::uint64_t id = 0;
    std::uint32_t length = 0;
    std::memcpy(&id, c.buffer.data() + at + 1, 8);
    std::memcpy(&length, c.buffer.data() + at + 9, 4);
    if (c.buffer.size() - at - kHeader < length) break;
    std::string bytes = c.buffer.substr(at + kHeader, length);
    at += kHeader + length;
    if (c.sent.empty() || c.sent.front().id != id) continue;  // answers come in order: none other can be
    if (kind == 'A' && c.suspect == id) throw ExternalDeath(id, c.suspect_death);
    c.sent.pop_front();
    c.suspect.reset();
    Answer a{id, {}, {}, 0};
    if (kind == 'C') {
      c.said_crash = true;
      a.crash = std::move(bytes);
    } else {
      if (kind == 'B') {
        std::memcpy(&a.recycled_growth, bytes.data() + bytes.size() - 8, 8);
        bytes.resize(bytes.size() - 8);
      }
      a.bytes = std::move(bytes);
    }
    answered_.push_back(std::move(a));
  }
  c.buffer.erase(0, at);
}

bool RunPool::read_from(Child& c) {
  char chunk[65536];
  const ssize_t n = read(c.from, chunk, sizeof chunk);
  if (n < 0 && errno == EINTR) return false;
  if (n > 0) {
    c.buffer.append(chunk, static_cast<std::size_t>(n));
    take_frames(c);
    return false;
  }
  return true;
}

void RunPool::ended(Child& c) {
  take_frames(c);
  forget_fd(c.to);
  forget_fd(c.from);
  close(c.to);
  close(c.from);
  c.to = c.from = -1;
  int status = 0;
  waitpid(c.pid, &status, 0);
  c.pid = -1;
  c.buffer.clear();
  std::deque<Request> unanswered = std::move(c.sent);
  c.sent.clear();
  const bool explained = (WIFEXITED(status) && WEXITSTATUS(status) == 0) || c.said_crash;
  c.said_crash = false;
  if (!explained && !unanswered.empty()) {
    // It died in its first unanswered request without saying how.
    Request first = std::move(unanswered.front());
    unanswered.pop_front();
    if (c.suspect == first.id) {
      c.suspect.reset();
      answered_.push_back(Answer{first.id, {}, death_of(status)});
    } else {
      c.suspect = first.id;
      c.suspect_death = death_of(status);
      send(c, std::move(first));
    }
  }
  for (auto it = unanswered.rbegin(); it != unanswered.rend(); ++it) queued_.push_front(std::move(*it));
}

RunPool::Answer RunPool::next() {
  while (answered_.empty()) {
    feed();
    std::vector<pollfd> fds;
    std::vector<Child*> which;
    for (Child& c : children_) {
      if (c.from < 0) continue;
      fds.push_back(pollfd{c.from, POLLIN, 0});
      which.push_back(&c);
    }
    if (fds.empty()) throw std::runtime_error("RunPool::next: nothing was submitted");
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("waiting for a child process: {}", std::strerror(errno)));
    }
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].revents && read_from(*which[i])) ended(*which[i]);
    }
  }
  Answer a = std::move(answered_.front());
  answered_.pop_front();
  --pending_;
  return a;
}

DecisionTape::DecisionTape(std::size_t capacity) : capacity_(capacity) {
  void* p = mmap(nullptr, (capacity + 1) * sizeof(std::uint32_t), PROT_READ | PROT_WRITE,
                 MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::runtime_error(fmt::format("cannot map a decision tape: {}", std::strerror(errno)));
  words_ = static_cast<std::uint32_t*>(p);
}

DecisionTape::~DecisionTape() { munmap(words_, (capacity_ + 1) * sizeof(std::uint32_t)); }

std::vector<std::uint32_t> DecisionTape::recorded() const {
  std::vector<std::uint32_t> out(words_ + 1, words_ + 1 + std::min<std::size_t>(words_[0], capacity_));
  while (!out.empty() && out.back() == 0) out.pop_back();
  return out;
}

RunPool::Answer run_isolated(const RunPool::Body& body, std::string request, Limits limits) {
  RunPool pool(1, body, limits, 1);
  pool.submit(0, std::move(request));
  return pool.next();
}

}  // namespace zksim::scenarios::detail
