// RealLoop: closures posted from any thread, timers and tasks, all run on
// the thread that calls run_until_done / run_for.
#include "zksim/real_client.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>

namespace zksim {

struct RealLoop::Impl {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> posted;  // guarded by mu

  // Loop thread only.
  std::map<std::pair<TimeMs, std::uint64_t>, std::function<void()>> timers;
  std::map<std::uint64_t, TimeMs> timer_at;  // id -> its key's time
  std::uint64_t next_timer = 1;
  std::map<std::uint64_t, Task<>> tasks;
  std::uint64_t next_task = 1;

  TimeMs now() const {
    auto d = std::chrono::steady_clock::now() - start;
    return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
  }

  void reap_finished() {
    for (auto it = tasks.begin(); it != tasks.end();) {
      it = it->second.done() ? tasks.erase(it) : std::next(it);
    }
  }

  // Runs what is due; waits (at most until `deadline`) when nothing is.
  void turn(TimeMs deadline) {
    std::deque<std::function<void()>> batch;
    {
      std::unique_lock lock(mu);
      if (posted.empty()) {
        TimeMs wake = deadline;
        if (!timers.empty()) wake = std::min(wake, timers.begin()->first.first);
        TimeMs wait = wake - now();
        if (wait > 0) cv.wait_for(lock, std::chrono::milliseconds(wait));
      }
      batch.swap(posted);
    }
    for (auto& fn : batch) fn();
    const TimeMs t = now();
    while (!timers.empty() && timers.begin()->first.first <= t) {
      auto node = timers.extract(timers.begin());
      timer_at.erase(node.key().second);
      node.mapped()();
    }
    reap_finished();
  }
};

RealLoop::RealLoop() : impl_(std::make_unique<Impl>()) {}

RealLoop::~RealLoop() {
  impl_->tasks.clear();
  impl_->timers.clear();
  std::lock_guard lock(impl_->mu);
  impl_->posted.clear();
}

void RealLoop::post(std::function<void()> fn) {
  {
    std::lock_guard lock(impl_->mu);
    impl_->posted.push_back(std::move(fn));
  }
  impl_->cv.notify_one();
}

TimeMs RealLoop::now() const { return impl_->now(); }

std::uint64_t RealLoop::call_at(TimeMs t, std::function<void()> fn) {
  std::uint64_t id = impl_->next_timer++;
  impl_->timers.emplace(std::make_pair(t, id), std::move(fn));
  impl_->timer_at.emplace(id, t);
  return id;
}

void RealLoop::cancel_call(std::uint64_t id) {
  auto it = impl_->timer_at.find(id);
  if (it == impl_->timer_at.end()) return;
  impl_->timers.erase(std::make_pair(it->second, id));
  impl_->timer_at.erase(it);
}

void RealLoop::spawn(Task<> task) {
  auto h = task.handle();
  impl_->tasks.emplace(impl_->next_task++, std::move(task));
  post([h] { h.resume(); });
}

void RealLoop::start(Task<> task) {
  auto h = task.handle();
  impl_->tasks.emplace(impl_->next_task++, std::move(task));
  h.resume();
}

int RealLoop::running_tasks() const { return static_cast<int>(impl_->tasks.size()); }

bool RealLoop::run_until_done(TimeMs timeout_ms) {
  const TimeMs deadline = now() + timeout_ms;
  do {
    impl_->turn(deadline);
  } while (!impl_->tasks.empty() && now() < deadline);
  return impl_->tasks.empty();
}

void RealLoop::run_for(TimeMs ms) {
  const TimeMs deadline = now() + ms;
  while (now() < deadline) impl_->turn(deadline);
}

}  // namespace zksim
