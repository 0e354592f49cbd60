// Task<T>: the coroutine type recipes are written in. A Task starts when it is
// awaited (or spawned) and resumes its awaiter when it finishes. Everything
// runs on one thread; where a coroutine resumes is decided by the backend
// (the simulated world or the real client's event loop), never by a thread.
//
//   zksim::Task<int> answer() { co_return 42; }
//   zksim::Task<> caller() { int x = co_await answer(); ... }
#pragma once

#include "zksim/per_thread.h"

#include <cassert>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <utility>

namespace zksim {

template <class T = void>
class Task;

namespace detail {

// Coroutine frames, recycled by size. Recipes make many short calls, each a
// frame allocated and freed once; a free list per size class (64-byte
// steps, up to 2 KiB) makes that a few instructions instead of a trip
// through malloc. Per thread: a frame freed on another thread than the one
// that made it joins that thread's lists, or goes back to the heap if that
// thread has made no frame. Sanitizer builds use plain new,
// so frames keep their use-after-free checks. A frame may outlive the pool
// (a task held by an object in another thread_local, destroyed after it):
// once the pool is gone, frames are made and freed with plain new and delete.
class FramePool {
 public:
  static void* allocate_frame(std::size_t n) {
    FramePool* pool = PerThread<FramePool>::get();
    return pool ? pool->allocate(n) : ::operator new(n);
  }
  static void deallocate_frame(void* p, std::size_t n) noexcept {
    if (FramePool* pool = PerThread<FramePool>::peek()) return pool->deallocate(p, n);
    ::operator delete(p);
  }

  FramePool() = default;
  FramePool(const FramePool&) = delete;
  FramePool& operator=(const FramePool&) = delete;
  ~FramePool() {
    for (Block*& head : free_) {
      while (Block* b = head) {
        head = b->next;
        ::operator delete(b);
      }
    }
  }

 private:
  void* allocate(std::size_t n) {
    const std::size_t c = (n + kGrain - 1) / kGrain;
    if (c >= kClasses) return ::operator new(n);
    if (Block* b = free_[c]) {
      free_[c] = b->next;
      return b;
    }
    return ::operator new(c * kGrain);
  }
  void deallocate(void* p, std::size_t n) noexcept {
    const std::size_t c = (n + kGrain - 1) / kGrain;
    if (c >= kClasses) return ::operator delete(p);
    auto* b = static_cast<Block*>(p);
    b->next = free_[c];
    free_[c] = b;
  }
  static constexpr std::size_t kGrain = 64;
  static constexpr std::size_t kClasses = 33;  // class c holds frames of c * 64 bytes
  struct Block {
    Block* next;
  };
  Block* free_[kClasses] = {};
};

struct TaskPromiseBase {
  std::coroutine_handle<> continuation = std::noop_coroutine();

#if !defined(__SANITIZE_ADDRESS__)
  static void* operator new(std::size_t n) { return FramePool::allocate_frame(n); }
  static void operator delete(void* p, std::size_t n) noexcept { FramePool::deallocate_frame(p, n); }
#endif

  struct FinalAwaiter {
    bool await_ready() const noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      return h.promise().continuation;
    }
    void await_resume() const noexcept {}
  };
  std::suspend_always initial_suspend() const noexcept { return {}; }
  FinalAwaiter final_suspend() const noexcept { return {}; }
  // Recipes report outcomes as values; an exception escaping one is a bug.
  // It ends the process through std::terminate while it is still the
  // current exception, so that a handler can say which it was (a campaign's
  // child process reports it as the crash).
  void unhandled_exception() const noexcept { std::terminate(); }
};

template <class T>
struct TaskPromise : TaskPromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <class U>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
};

template <>
struct TaskPromise<void> : TaskPromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() const noexcept {}
};

}  // namespace detail

template <class T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::TaskPromise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  explicit Task(Handle h) noexcept : h_(h) {}
  Task(Task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      if (h_) h_.destroy();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  // Destroying a Task destroys its coroutine, and with it whatever the
  // coroutine is awaiting: the way a crashed client's work disappears.
  ~Task() {
    if (h_) h_.destroy();
  }

  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiter) noexcept {
    h_.promise().continuation = awaiter;
    return h_;
  }
  T await_resume() {
    if constexpr (!std::is_void_v<T>) return std::move(*h_.promise().value);
  }

  // For runners: the coroutine, still owned by this Task.
  Handle handle() const noexcept { return h_; }
  bool done() const noexcept { return h_ && h_.done(); }

 private:
  Handle h_;
};

namespace detail {
template <class T>
Task<T> TaskPromise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<TaskPromise<T>>::from_promise(*this));
}
inline Task<void> TaskPromise<void>::get_return_object() noexcept {
  return Task<void>(std::coroutine_handle<TaskPromise<void>>::from_promise(*this));
}
}  // namespace detail

// A one-shot event a coroutine can wait for: a watch firing, a lock being
// granted. Copies share one state, so a copy captured by a watch callback
// may outlive the coroutine that waits. set() resumes the waiter (at most
// one) synchronously; waiting on a Signal that is already set does not
// suspend. A waiter destroyed while suspended unregisters itself.
class Signal {
 private:
  struct State {
    bool set = false;
    std::coroutine_handle<> waiter;
  };

 public:
  Signal() : state_(std::make_shared<State>()) {}
  bool is_set() const noexcept { return state_->set; }
  void set() {
    if (state_->set) return;
    state_->set = true;
    if (auto w = std::exchange(state_->waiter, {})) w.resume();
  }

  class Awaiter {
   public:
    explicit Awaiter(std::shared_ptr<State> s) : s_(std::move(s)) {}
    Awaiter(const Awaiter&) = delete;
    Awaiter& operator=(const Awaiter&) = delete;
    ~Awaiter() { detach(); }
    // Stops waiting: set() will no longer resume the suspended coroutine
    // (for a backend resuming it for another reason, such as a timeout).
    void detach() noexcept {
      if (me_ && s_->waiter == me_) s_->waiter = {};
      me_ = {};
    }
    bool await_ready() const noexcept { return s_->set; }
    void await_suspend(std::coroutine_handle<> h) noexcept {
      assert(!s_->waiter);
      me_ = h;
      s_->waiter = h;
    }
    void await_resume() const noexcept {}

   private:
    std::shared_ptr<State> s_;
    std::coroutine_handle<> me_;
  };
  Awaiter wait() const { return Awaiter(state_); }

 private:
  std::shared_ptr<State> state_;
};

}  // namespace zksim
