#include "zksim/fault.h"

#include <array>

namespace zksim {
namespace {

// Class k's name; the first kFaultKinds are FaultKind k's too.
constexpr std::array<std::string_view, kFaultClasses> kClassNames = {
    "drop-before-apply", "drop-after-apply", "expire-session", "pause", "crash", "delay",
    "any-time",          "blip-all",         "burst",          "lag-burst", "server-crash", "leader-crash",
    "partition",         "session-moved"};

// The band of choices [low, high) that strike with class `k`.
struct Band {
  std::uint32_t low, high;
};

// Bands start at the top for the first class of their group (the
// request-triggered classes from 0, the time-triggered from kFaultKinds).
Band band_of(const NemesisRates& rates, int k) {
  std::uint32_t top = kNemesisChoices;
  for (int i = k < kFaultKinds ? 0 : kFaultKinds; i < k; ++i) {
    top = top > rates.per_mille[i] ? top - rates.per_mille[i] : 0;
  }
  const std::uint32_t r = rates.per_mille[k];
  return Band{top > r ? top - r : 0, top};
}

}  // namespace

std::string_view fault_class_name(std::int32_t fault_class) {
  return fault_class >= 0 && fault_class < kFaultClasses ? kClassNames[static_cast<std::size_t>(fault_class)] : "?";
}

std::optional<FaultKind> NemesisRates::strike(std::uint32_t choice) const {
  for (int k = 0; k < kFaultKinds; ++k) {
    const Band b = band_of(*this, k);
    if (choice >= b.low && choice < b.high) return static_cast<FaultKind>(k);
  }
  return std::nullopt;
}

std::optional<TimedFault> NemesisRates::strike_timed(std::uint32_t choice) const {
  for (int k = kFaultKinds; k < kFaultClasses; ++k) {
    const Band b = band_of(*this, k);
    if (choice >= b.low && choice < b.high) return static_cast<TimedFault>(k);
  }
  return std::nullopt;
}

std::optional<std::uint32_t> NemesisRates::choice_for(FaultKind kind) const {
  const Band b = band_of(*this, static_cast<int>(kind));
  if (b.low >= b.high) return std::nullopt;
  return b.low;
}

}  // namespace zksim
