// The coroutine frame pool (zksim/task.h) and the end of its thread. This
// program replaces the global operator new and delete with ones that count
// the blocks alive, so a frame that never goes back to the heap shows.
// (Sanitizer builds make frames with plain new: there the rule holds
// trivially.)
#include "zksim/task.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>

namespace {
std::atomic<long> blocks_alive{0};
}  // namespace

void* operator new(std::size_t n) {
  if (void* p = std::malloc(n == 0 ? 1 : n)) {
    blocks_alive.fetch_add(1, std::memory_order_relaxed);
    return p;
  }
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  if (!p) return;
  blocks_alive.fetch_sub(1, std::memory_order_relaxed);
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }

namespace zksim {
namespace {

Task<int> one() { co_return 1; }

// Destroyed after the thread's frame pool when constructed before it.
struct LateHolder {
  long* blocks_kept = nullptr;
  ~LateHolder() {
    long before = blocks_alive.load();
    { Task<int> late = one(); }  // made and freed after the pool is gone
    *blocks_kept = blocks_alive.load() - before;
  }
};

TEST(FramePool, AFrameMadeAndFreedAfterThePoolIsGoneGoesBackToTheHeap) {
  long blocks_kept = -1;
  std::thread([&blocks_kept] {
    thread_local LateHolder holder;  // constructed first, so destroyed last
    holder.blocks_kept = &blocks_kept;
    Task<int> early = one();  // the thread's pool is made here
  }).join();
  EXPECT_EQ(blocks_kept, 0);
}

}  // namespace
}  // namespace zksim
