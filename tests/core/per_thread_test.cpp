// PerThread<T> (zksim/per_thread.h): one T per thread, and null for whoever
// asks after the thread has destroyed it.
#include "zksim/per_thread.h"

#include <gtest/gtest.h>

#include <thread>

namespace zksim::detail {
namespace {

struct Counter {
  int uses = 0;
};

TEST(PerThread, EachThreadHasItsOwn) {
  PerThread<Counter>::get()->uses = 7;
  int other = -1;
  std::thread([&other] { other = PerThread<Counter>::get()->uses; }).join();
  EXPECT_EQ(other, 0);
  EXPECT_EQ(PerThread<Counter>::get()->uses, 7);
}

TEST(PerThread, PeekDoesNotMakeIt) {
  bool made = true;
  std::thread([&made] { made = PerThread<Counter>::peek() != nullptr; }).join();
  EXPECT_FALSE(made);
}

struct Seen {
  Counter* by_get = reinterpret_cast<Counter*>(1);
  Counter* by_peek = reinterpret_cast<Counter*>(1);
};

// Destroyed after the thread's Counter when constructed before it.
struct LateAsker {
  Seen* seen = nullptr;
  ~LateAsker() {
    seen->by_get = PerThread<Counter>::get();
    seen->by_peek = PerThread<Counter>::peek();
  }
};

TEST(PerThread, IsNullForObjectsDestroyedAfterIt) {
  Seen seen;
  std::thread([&seen] {
    thread_local LateAsker asker;  // constructed first, so destroyed last
    asker.seen = &seen;
    PerThread<Counter>::get()->uses = 1;
  }).join();
  EXPECT_EQ(seen.by_get, nullptr);
  EXPECT_EQ(seen.by_peek, nullptr);
}

}  // namespace
}  // namespace zksim::detail
