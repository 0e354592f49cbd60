#include "zksim/fault.h"

#include <array>

namespace zksim {
namespace {

// Class k's name; the first kFaultKinds are FaultKind k's too.
constexpr std::array<std::string_view, kFaultClasses> kClassNames = {
    "drop-before-apply", "drop-after-apply", "expire-session", "pause",        "crash",
    "delay",             "any-time",         "blip-all",       "burst",        "op-chain",
    "lag-burst",         "server-crash",     "leader-crash",   "partition",    "session-moved"};

constexpr std::array<std::string_view, kOpChains> kChainNames = {
    "reply-lost", "reply-lost-twice", "request-lost-pause", "reply-lost-expiry",
    "reply-lost-outage"};

// The class of group `in_group` whose band holds `choice`. Bands start at
// the top for the first class of their group and go down in list order:
// class k takes per_mille[k] choices below the one before it.
template <class Pred>
std::optional<std::int32_t> band_holding(const NemesisRates& rates, Pred in_group, std::uint32_t choice) {
  std::uint32_t top = kNemesisChoices;
  for (std::int32_t k = 0; k < kFaultClasses && top > 0; ++k) {
    if (!in_group(k)) continue;
    const std::uint32_t r = rates.per_mille[k];
    const std::uint32_t low = top > r ? top - r : 0;
    if (choice >= low && choice < top) return k;
    top = low;
  }
  return std::nullopt;
}

}  // namespace

std::string_view fault_class_name(std::int32_t fault_class) {
  return fault_class >= 0 && fault_class < kFaultClasses ? kClassNames[static_cast<std::size_t>(fault_class)] : "?";
}

std::string_view op_chain_name(std::int32_t chain) {
  return chain >= 0 && chain < kOpChains ? kChainNames[static_cast<std::size_t>(chain)] : "?";
}

std::optional<std::int32_t> NemesisRates::strike(std::uint32_t choice) const {
  return band_holding(*this, is_request_class, choice);
}

std::optional<TimedFault> NemesisRates::strike_timed(std::uint32_t choice) const {
  const std::optional<std::int32_t> k = band_holding(*this, is_timed_class, choice);
  return k ? std::optional<TimedFault>(static_cast<TimedFault>(*k)) : std::nullopt;
}

std::optional<std::uint32_t> NemesisRates::choice_for(std::int32_t fault_class) const {
  if (!is_request_class(fault_class) || per_mille[fault_class] == 0) return std::nullopt;
  std::uint32_t top = kNemesisChoices;
  for (std::int32_t k = 0; k < fault_class; ++k) {
    if (is_request_class(k)) top = top > per_mille[k] ? top - per_mille[k] : 0;
  }
  if (top == 0) return std::nullopt;
  return top > per_mille[fault_class] ? top - per_mille[fault_class] : 0;
}

}  // namespace zksim
