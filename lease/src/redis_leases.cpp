#include "zksim/lease/locks.h"
#include "zksim/redis/lock_scripts.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace zksim::lease {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

TimeMs ms_of(const std::string& text) {
  TimeMs v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

}  // namespace

std::optional<RedisLeaseGrant> redis_lease_granted(const redis::Command& c, const redis::Reply& r) {
  if (c.size() >= 3 && iequals(c[0], "set") && r == redis::Reply::ok()) {
    for (std::size_t i = 3; i + 1 < c.size(); ++i) {
      if (iequals(c[i], "px")) return RedisLeaseGrant{c[1], ms_of(c[i + 1])};
    }
  }
  // FCALL <function> 1 <key> <lease ms> <holder>
  if (c.size() == 6 && iequals(c[0], "fcall")) {
    const bool taken = c[1] == redis::scripts::kRLockTryLock && r.is_nil();
    const bool renewed = c[1] == redis::scripts::kRLockRenew && r == redis::Reply::of(1);
    if (taken || renewed) return RedisLeaseGrant{c[3], ms_of(c[4])};
  }
  return std::nullopt;
}

}  // namespace zksim::lease
