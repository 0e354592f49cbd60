#include "zksim/recipes/flawed/blog_rw_lock.h"

#include "../contender.h"

namespace zksim::recipes::flawed {

BlogReadWriteLock::BlogReadWriteLock(Client& zk, std::string dir, Transcription t)
    : zk_(zk), dir_(std::move(dir)), transcription_(t) {}

Task<Result<Grant>> BlogReadWriteLock::acquire_read(TimeMs) {
  auto g = co_await lock("lock-r-");
  if (g) read_ = g->node;
  co_return g;
}

Task<Result<Grant>> BlogReadWriteLock::acquire_write(TimeMs) {
  auto g = co_await lock("lock-w-");
  if (g) write_ = g->node;
  co_return g;
}

Task<Result<void>> BlogReadWriteLock::release_read() {
  std::string node = std::exchange(read_, {});
  if (node.empty()) co_return Error::BadArguments;
  co_return co_await zk_.remove(node);  // deleteNode: one try
}

Task<Result<void>> BlogReadWriteLock::release_write() {
  std::string node = std::exchange(write_, {});
  if (node.empty()) co_return Error::BadArguments;
  co_return co_await zk_.remove(node);
}

// readLock() and writeLock() of the post are the same code but for the
// prefix; this is that code, step by step.
Task<Result<Grant>> BlogReadWriteLock::lock(std::string prefix) {
  auto parent = co_await detail::ensure_path(zk_, dir_);
  if (!parent) co_return parent.error();
  auto made = co_await zk_.create(detail::join(dir_, prefix), "", CreateMode::EphemeralSequential);
  if (!made) co_return made.error();  // the post's createNode throws
  const std::string path = made->path;
  Grant grant{path, made->stat.czxid};
  std::string node_path = dir_;
  long node_id = -1;
  // ZkWatcher: any NodeDeleted opens whatever latch is current.
  Watcher zk_watcher = [this](const WatchedEvent& e) {
    if (e.type == EventType::NodeDeleted) latch_.set();
  };
  for (;;) {
    auto listed = co_await zk_.get_children(node_path, zk_watcher);  // getChildren(path, true)
    if (!listed) co_return listed.error();
    const std::vector<std::string>& node_list = listed->children;
    if (node_list.empty()) co_return Error::SystemError;  // nodeList.get(0) throws
    std::string first_node_path = node_path + "/" + node_list[0];
    if (first_node_path == path) {
      latch_ = Signal();
      co_return grant;
    }
    for (std::size_t i = 0; i < node_list.size(); ++i) {
      if (transcription_ == Transcription::AsWritten) {
        node_path = node_path + node_list[i];  // no '/', and it accumulates
        if (node_path == path) node_id = static_cast<long>(i);
      } else if (dir_ + "/" + node_list[i] == path) {
        node_id = static_cast<long>(i);
      }
    }
    for (long i = 0; i < node_id; ++i) {
      if (node_list[static_cast<std::size_t>(i)].find('w') != std::string::npos) {
        Signal current = latch_;
        co_await current.wait();  // lockSemaphore.await(); then `continue` the for loop
      }
    }
    latch_ = Signal();
    co_return grant;
  }
}

}  // namespace zksim::recipes::flawed
