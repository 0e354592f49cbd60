// Sequential node names: the suffix ZooKeeper appends is "%010d" of the
// parent's signed 32-bit counter, so after 2147483647 it may go negative
// ("-2147483648"); ZooKeeper 3.8 may also repeat 2147483647 once the counter
// reaches it (DataTree keeps the larger cversion). Recipes order contenders
// with these helpers, never by comparing names as strings.
//
//   sequence_after("_c_1f-3-lock-0000000042", "lock-")  -> 42
//   sequence_before(2147483647, -2147483648)           -> true
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
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

// Sorts `items` into issue order by their numbers `seq_of(item)`, spread
// over less than 2^31: numeric order with the cycle cut at the widest gap
// between neighbouring values. Equal numbers keep their input order
// (stable).
template <class T, class SeqOf>
void sort_in_issue_order(std::vector<T>& items, SeqOf seq_of) {
  const std::size_t n = items.size();
  if (n < 2) return;
  if (n <= 16) {
    // A handful (the usual case): an insertion sort, stable and without
    // the buffer std::stable_sort allocates.
    for (std::size_t i = 1; i < n; ++i) {
      T key = std::move(items[i]);
      std::size_t j = i;
      for (; j > 0 && seq_of(items[j - 1]) > seq_of(key); --j) items[j] = std::move(items[j - 1]);
      items[j] = std::move(key);
    }
  } else {
    std::stable_sort(items.begin(), items.end(),
                     [&](const T& a, const T& b) { return seq_of(a) < seq_of(b); });
  }
  // The first in issue order follows the widest gap (circularly) between
  // neighbours in numeric order.
  auto gap = [&](std::size_t i) {  // from items[i-1] to items[i], wrapping
    std::size_t prev = i == 0 ? n - 1 : i - 1;
    return static_cast<std::uint32_t>(seq_of(items[i])) - static_cast<std::uint32_t>(seq_of(items[prev]));
  };
  std::size_t start = 0;
  std::uint32_t widest = gap(0);
  for (std::size_t i = 1; i < n; ++i) {
    if (gap(i) > widest) widest = gap(i), start = i;
  }
  std::rotate(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(start), items.end());
}

// The position, in issue order, of each of `seqs` (a permutation of indexes
// into `seqs`), as sort_in_issue_order orders them.
std::vector<std::size_t> issue_order(const std::vector<std::int32_t>& seqs);

}  // namespace zksim::recipes
