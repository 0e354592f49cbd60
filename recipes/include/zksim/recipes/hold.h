// What a holder of a lock, lease or leadership is told about its session,
// after Curator's connection states. Between Suspended and Reconnected the
// holder may no longer hold (the server may have expired the session
// already); after Lost it certainly does not.
#pragma once

#include <functional>

namespace zksim::recipes {

enum class HoldEvent {
  Suspended,    // disconnected: the session may be expiring on the server
  Reconnected,  // connected again with the same session: still held
  Lost,         // the session expired (or was closed): no longer held
};

using HoldListener = std::function<void(HoldEvent)>;

const char* hold_event_name(HoldEvent e);

}  // namespace zksim::recipes
