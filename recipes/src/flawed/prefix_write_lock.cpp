#include "zksim/recipes/flawed/prefix_write_lock.h"

#include "../contender.h"

#include <algorithm>
#include <charconv>

namespace zksim::recipes::flawed {

namespace {

struct ZNodeName {
  std::string name, prefix;
  int sequence = -1;
  explicit ZNodeName(std::string n) : name(std::move(n)), prefix(name) {
    std::size_t idx = name.rfind('-');
    if (idx == std::string::npos) return;
    prefix = name.substr(0, idx);
    std::string_view digits = std::string_view(name).substr(idx + 1);
    int v = 0;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec == std::errc() && p == digits.data() + digits.size()) sequence = v;
  }
};

}  // namespace

int PrefixWriteLock::compare_names(const std::string& a_name, const std::string& b_name) {
  ZNodeName a(a_name), b(b_name);
  int answer = a.prefix.compare(b.prefix);
  if (answer != 0) return answer < 0 ? -1 : 1;
  if (a.sequence == -1 && b.sequence == -1) return a.name.compare(b.name);
  if (a.sequence == -1) return 1;
  if (b.sequence == -1) return -1;
  return a.sequence < b.sequence ? -1 : (a.sequence > b.sequence ? 1 : 0);
}

PrefixWriteLock::PrefixWriteLock(Client& zk, std::string dir) : zk_(zk), dir_(std::move(dir)) {}

Task<Result<Grant>> PrefixWriteLock::acquire(TimeMs) {
  auto parent = co_await detail::ensure_path(zk_, dir_);  // ensurePathExists(dir)
  if (!parent) co_return parent.error();
  for (;;) {
    if (id_.empty()) {
      // findPrefixInChildren: our node from an earlier attempt, or a new one.
      std::string prefix = "x-" + std::to_string(zk_.session_id().value) + "-";
      auto names = co_await zk_.get_children(dir_);
      if (!names) {
        if (names.error() == Error::ConnectionLoss) continue;  // retryOperation
        co_return names.error();
      }
      for (const std::string& n : names->children) {
        if (n.starts_with(prefix)) {
          id_ = detail::join(dir_, n);
          break;
        }
      }
      if (id_.empty()) {
        auto made = co_await zk_.create(detail::join(dir_, prefix), "\x12\x34",
                                        CreateMode::EphemeralSequential);
        if (!made) {
          if (made.error() == Error::ConnectionLoss) continue;
          co_return made.error();
        }
        id_ = made->path;
        czxid_ = made->stat.czxid;
      }
    }
    auto names = co_await zk_.get_children(dir_);
    if (!names) {
      if (names.error() == Error::ConnectionLoss) continue;
      co_return names.error();
    }
    if (names->children.empty()) {
      id_.clear();  // "lets force the recreation of the id"
      continue;
    }
    std::vector<std::string> sorted;
    for (const std::string& n : names->children) sorted.push_back(detail::join(dir_, n));
    std::sort(sorted.begin(), sorted.end(),
              [](const std::string& a, const std::string& b) { return compare_names(a, b) < 0; });
    auto me = std::lower_bound(sorted.begin(), sorted.end(), id_,
                               [](const std::string& a, const std::string& b) { return compare_names(a, b) < 0; });
    if (me != sorted.begin()) {
      // Watch the last node less than me; re-run lock() when anything fires.
      Signal fired;
      auto st = co_await zk_.exists(*(me - 1), signal_watcher(fired));
      if (st) co_await fired.wait();
      continue;
    }
    if (sorted.front() != id_) co_return Error::NoNode;  // lock() returns false for good
    if (czxid_ == 0) {
      auto st = co_await zk_.exists(id_);
      if (st) czxid_ = st->czxid;
    }
    owner_ = true;
    co_return Grant{id_, czxid_};
  }
}

Task<Result<void>> PrefixWriteLock::release() {
  if (id_.empty()) co_return Error::BadArguments;
  auto gone = co_await zk_.remove(id_);
  id_.clear();
  czxid_ = 0;
  owner_ = false;
  if (!gone && gone.error() != Error::NoNode) co_return gone.error();
  co_return Result<void>();
}

}  // namespace zksim::recipes::flawed
