#include "zksim/flavour.h"

namespace zksim {
namespace {

// One row per flavour, in Flavour order. docs/flavours.md gives the source
// of every rule.
constexpr std::array<FlavourRules, kFlavours> kRules = {{
    {"c", "ZooKeeper's C client 3.8: one thread, a handle is final after expiry",
     false, true, false, false, false, false, FlavourRules::Completions::AtReply,
     {"disconnected", "connected", "expired"}},
    {"curator",
     "Apache Curator 5 on the Java client: a new session after expiry, listeners on their own "
     "thread, LOST after being suspended for the session timeout; recipes on the caller's "
     "thread, watchers and background callbacks on the event thread",
     true, true, true, true, true, true, FlavourRules::Completions::OnEventThread,
     {"SUSPENDED", "RECONNECTED", "LOST"}},
    {"kazoo",
     "kazoo 2 (Python): a new session after expiry; no setWatches: a dropped connection "
     "tells each watcher once and forgets it; recipes on the caller's thread, watchers on the "
     "callback worker, async completions on the completion worker",
     true, false, false, false, true, true, FlavourRules::Completions::OnOwnThread,
     {"SUSPENDED", "CONNECTED", "LOST"}},
}};

}  // namespace

const FlavourRules& rules_of(Flavour f) { return kRules[static_cast<std::size_t>(f)]; }

std::string_view flavour_name(Flavour f) { return rules_of(f).name; }

std::optional<Flavour> flavour_named(std::string_view name) {
  for (int i = 0; i < kFlavours; ++i) {
    if (kRules[static_cast<std::size_t>(i)].name == name) return static_cast<Flavour>(i);
  }
  return std::nullopt;
}

}  // namespace zksim
