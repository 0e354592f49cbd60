#include "zksim/recipes/election.h"

#include "contender.h"

namespace zksim::recipes {

namespace {
LockOptions election_options(std::string id, HoldListener on_hold) {
  LockOptions o;
  o.name = LeaderElection::kMarker;
  o.data = std::move(id);
  o.on_hold = std::move(on_hold);
  return o;
}
}  // namespace

LeaderElection::LeaderElection(Client& zk, std::string dir, std::string id, HoldListener on_hold)
    : zk_(zk), dir_(dir), lock_(zk, std::move(dir), election_options(std::move(id), std::move(on_hold))) {}

Task<Result<Grant>> LeaderElection::campaign(TimeMs timeout_ms) { return lock_.acquire(timeout_ms); }

Task<Result<void>> LeaderElection::resign() {
  if (lock_.hold_count() == 0) co_return Error::BadArguments;
  while (lock_.hold_count() > 1) co_await lock_.release();
  co_return co_await lock_.release();
}

Task<Result<bool>> LeaderElection::verify() {
  if (!lock_.holds()) co_return false;
  std::string node = lock_.grant()->node;
  auto st = co_await zk_.exists(node);
  if (!st && st.error() == Error::NoNode) co_return false;
  if (!st) co_return st.error();
  co_return st->ephemeralOwner == zk_.session_id().value;
}

Task<Result<std::string>> LeaderElection::leader() {
  for (;;) {
    detail::Markers markers{kMarker};
    auto all = co_await detail::contenders(zk_, dir_, markers);
    if (!all) co_return all.error();
    if (all->empty()) co_return Error::NoNode;
    auto data = co_await zk_.get_data(detail::join(dir_, all->front().name));
    if (data) co_return std::move(data->data);
    if (data.error() != Error::NoNode && data.error() != Error::ConnectionLoss) co_return data.error();
  }
}

}  // namespace zksim::recipes
