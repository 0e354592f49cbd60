#include "bank.h"

#include <algorithm>

namespace bank {

std::string join(const std::string& dir, std::string_view name) {
  std::string out = dir;
  out += '/';
  out += name;
  return out;
}

std::string_view name_of(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

std::string_view sequence_of(std::string_view name) {
  return name.size() < 10 ? name : name.substr(name.size() - 10);
}

std::vector<std::string> by_sequence(std::vector<std::string> names) {
  std::stable_sort(names.begin(), names.end(),
                   [](const std::string& a, const std::string& b) { return sequence_of(a) < sequence_of(b); });
  return names;
}

Task<Result<void>> ensure_path(Client& zk, std::string dir) {
  std::size_t end = 0;
  do {
    end = dir.find('/', end + 1);
    const std::string ancestor = dir.substr(0, end);
    for (;;) {
      auto made = co_await zk.create(ancestor, "", CreateMode::Persistent);
      if (made || made.error() == Error::NodeExists) break;
      if (made.error() != Error::ConnectionLoss) co_return made.error();
    }
  } while (end != std::string::npos);
  co_return Result<void>();
}

SessionNews::SessionNews(Client& zk, zksim::recipes::HoldListener listener)
    : zk_(zk), listener_(std::move(listener)) {
  id_ = zk_.add_session_listener([this](const WatchedEvent& e) {
    using zksim::KeeperState;
    using zksim::recipes::HoldEvent;
    if (e.state == KeeperState::Disconnected) {
      suspended_ = true;
      if (listener_) listener_(HoldEvent::Suspended);
    } else if (e.state == KeeperState::SyncConnected && suspended_) {
      suspended_ = false;
      if (listener_) listener_(HoldEvent::Reconnected);
    } else if (e.state == KeeperState::Expired) {
      suspended_ = false;
      lost_ = true;
      if (listener_) listener_(HoldEvent::Lost);
    }
  });
}

SessionNews::~SessionNews() { zk_.remove_session_listener(id_); }

bool SessionNews::lost() const {
  return lost_ || zk_.state() == zksim::SessionState::Expired || zk_.state() == zksim::SessionState::Closed;
}

}  // namespace bank
