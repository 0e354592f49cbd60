// Sequential node names: the suffix ZooKeeper appends is "%010d" of the
// parent's signed 32-bit counter, so after 2147483647 it may go negative
// ("-2147483648"); ZooKeeper 3.8 may also repeat 2147483647 once the counter
// reaches it (DataTree keeps the larger cversion). Recipes order contenders
// with these helpers, never by comparing names as strings.
//
//   sequence_after("_c_1f-3-lock-0000000042", "lock-")  -> 42
//   sequence_before(2147483647, -2147483648)           -> true
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace zksim::recipes {

// The sequence number that follows the last occurrence of `marker` in
// `name`, or nullopt if what follows is not exactly a "%010d" suffix.
std::optional<std::int32_t> sequence_after(std::string_view name, std::string_view marker);

// Serial-number order (RFC 1982 style): true when `a` was issued before `b`,
// for numbers less than 2^31 apart, including across the wrap.
inline bool sequence_before(std::int32_t a, std::int32_t b) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(a) - static_cast<std::uint32_t>(b)) < 0;
}

// The position, in issue order, of each of `seqs` (a permutation of indexes
// into `seqs`), for numbers spread over less than 2^31: the cycle is cut at
// the widest gap between neighbouring values. Equal numbers keep their input
// order (stable).
std::vector<std::size_t> issue_order(const std::vector<std::int32_t>& seqs);

}  // namespace zksim::recipes
