// Private: the probes' indexes, in the order of probe_table().
#pragma once

namespace zksim::scenarios::detail {

enum Probe : int {
  kHolderSessionExpired,
  kHolderToldLost,
  kGrantedBeforeExpiredHolderKnew,
  kGrantedAfterSessionExpired,
  kCrashedHolder,
  kWatchFiredByExpiry,
  kPausedPastSessionTimeout,
  kHolderReconnected,
  kReconnectFiredMissedWatch,
  kCreateAppliedReplyLost,
  kLostCreateFoundAgain,
  kDeleteAppliedReplyLost,
  kCreateNotApplied,
  kPredecessorGoneBeforeWatch,
  kTimeoutWithdrewNode,
  kContenderSessionExpired,
  kProbes
};

}  // namespace zksim::scenarios::detail
