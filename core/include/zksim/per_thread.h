// PerThread<T>: one T per thread, made on first use, for caches of reusable
// memory (coroutine frames, trace storage). Objects held in other
// thread_locals may outlive it, since thread_locals are destroyed in the
// reverse order of their construction: once this thread's T is destroyed,
// get() and peek() return null and the caller goes to the heap instead.
// What they read is a plain pointer and a flag with no destructor, valid
// until the thread ends, so the hot path costs no guard.
#pragma once

namespace zksim::detail {

template <class T>
class PerThread {
 public:
  // This thread's T, made now if need be; null once it is destroyed.
  static T* get() {
    if (T* t = live()) return t;
    return gone() ? nullptr : &make();
  }
  // This thread's T if it exists now (never makes it).
  static T* peek() noexcept { return live(); }

 private:
  struct Holder {
    T value;
    Holder() { live() = &value; }
    // Runs before value's destructor: while value frees what it holds,
    // nothing new comes into it.
    ~Holder() {
      live() = nullptr;
      gone() = true;
    }
  };
  static T& make() {
    thread_local Holder holder;
    return holder.value;
  }
  static T*& live() noexcept {
    thread_local T* t = nullptr;
    return t;
  }
  static bool& gone() noexcept {
    thread_local bool flag = false;
    return flag;
  }
};

}  // namespace zksim::detail
