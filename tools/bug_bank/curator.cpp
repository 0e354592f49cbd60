#include "curator.h"

namespace bank::curator {

Task<bool> retry_after(Client& zk, Error e, int& count) {
  const bool retryable = e == Error::ConnectionLoss || e == Error::OperationTimeout || e == Error::SessionMoved ||
                         e == Error::SessionExpired;
  if (!retryable || count >= 3) co_return false;
  co_await zk.sleep(TimeMs{1000} << count);
  ++count;
  co_return true;
}

namespace {

// creatingParentContainersIfNeeded: the parents as containers.
Task<Result<void>> make_parents(Client& zk, std::string dir) {
  std::size_t end = 0;
  do {
    end = dir.find('/', end + 1);
    const std::string ancestor = dir.substr(0, end);
    auto made = co_await zk.create(ancestor, "", CreateMode::Container);
    if (!made && made.error() != Error::NodeExists) co_return made.error();
  } while (end != std::string::npos);
  co_return Result<void>();
}

}  // namespace

Task<Result<Made>> create_protected(Client& zk, std::string dir, std::string name, CreateMode mode) {
  const std::string prefix = "_c_" + zk.unique_id() + "-";
  int count = 0;
  bool first = true;
  for (;;) {
    if (!first) {
      // findProtectedNodeInForeground.
      auto kids = co_await zk.get_children(dir);
      if (kids) {
        for (const std::string& child : kids->children) {
          if (!child.starts_with(prefix)) continue;
          const std::string found = join(dir, child);
          auto st = co_await zk.exists(found);
          if (st) co_return Made{found, st->czxid};
        }
      } else if (kids.error() != Error::NoNode) {
        if (co_await retry_after(zk, kids.error(), count)) continue;
        co_return kids.error();
      }
    }
    first = false;
    const std::string path = join(dir, prefix + name);
    auto made = co_await zk.create(path, "", mode);
    if (made) co_return Made{made->path, made->stat.czxid};
    if (made.error() == Error::NoNode) {
      auto parents = co_await make_parents(zk, dir);
      if (!parents && !co_await retry_after(zk, parents.error(), count)) co_return parents.error();
      continue;
    }
    if (!co_await retry_after(zk, made.error(), count)) co_return made.error();
  }
}

namespace {

Task<> delete_in_background(Client& zk, std::string path) {
  for (;;) {
    auto gone = co_await zk.remove(path);
    if (gone || gone.error() == Error::NoNode || gone.error() == Error::InvalidState) co_return;
    co_await zk.sleep(1000);
  }
}

}  // namespace

Task<void> delete_guaranteed(Client& zk, std::string path) {
  int count = 0;
  for (;;) {
    auto gone = co_await zk.remove(path);
    if (gone || gone.error() == Error::NoNode) co_return;
    if (co_await retry_after(zk, gone.error(), count)) continue;
    if (gone.error() != Error::InvalidState) zk.post(delete_in_background(zk, path));
    co_return;
  }
}

Task<Result<std::vector<std::string>>> children(Client& zk, std::string dir) {
  int count = 0;
  for (;;) {
    auto kids = co_await zk.get_children(dir);
    if (kids) co_return std::move(kids->children);
    if (kids.error() == Error::NoNode) co_return std::vector<std::string>{};
    if (!co_await retry_after(zk, kids.error(), count)) co_return kids.error();
  }
}

}  // namespace bank::curator
