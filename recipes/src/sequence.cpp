#include "zksim/recipes/sequence.h"

#include <algorithm>
#include <numeric>

namespace zksim::recipes {

namespace {

// `s` as "%010d" prints a 32-bit number, or nullopt.
std::optional<std::int32_t> parse_suffix(std::string_view s) {
  bool negative = !s.empty() && s.front() == '-';
  std::string_view digits = negative ? s.substr(1) : s;
  // "%010d" pads to 10 characters including the sign; -2147483648 is 11.
  if (s.size() != 10 && !(negative && s.size() == 11)) return std::nullopt;
  if (digits.empty()) return std::nullopt;
  std::int64_t v = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (negative) v = -v;
  if (v < INT32_MIN || v > INT32_MAX) return std::nullopt;
  if (s.size() == 11 && v > -1'000'000'000) return std::nullopt;  // not what %010d prints
  return static_cast<std::int32_t>(v);
}

// REQUIRES: at + marker.size() <= name.size().
bool marker_at(std::string_view name, std::size_t at, std::string_view marker) {
  if (marker.empty()) return true;
  return name[at] == marker[0] && name.substr(at, marker.size()) == marker;
}

}  // namespace

std::optional<std::int32_t> sequence_after(std::string_view name, std::string_view marker) {
  // Only an occurrence of the marker that ends 10 or 11 characters before
  // the end can be followed by a suffix, and only if it is the last one:
  // look there, and then for any later occurrence, instead of searching
  // the whole name.
  const std::size_t n = name.size(), m = marker.size();
  for (std::size_t length : {std::size_t{10}, std::size_t{11}}) {
    if (n < m + length) return std::nullopt;
    const std::size_t at = n - length - m;
    if (!marker_at(name, at, marker)) continue;
    for (std::size_t later = at + 1; later + m <= n; ++later) {
      if (marker_at(name, later, marker)) return std::nullopt;
    }
    return parse_suffix(name.substr(at + m));
  }
  return std::nullopt;
}

std::vector<std::size_t> issue_order(const std::vector<std::int32_t>& seqs) {
  std::vector<std::size_t> order(seqs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (seqs.size() < 2) return order;
  if (order.size() <= 16) {
    // A handful of contenders: an insertion sort, stable and without the
    // buffer std::stable_sort allocates.
    for (std::size_t i = 1; i < order.size(); ++i) {
      const std::size_t key = order[i];
      std::size_t j = i;
      for (; j > 0 && seqs[order[j - 1]] > seqs[key]; --j) order[j] = order[j - 1];
      order[j] = key;
    }
  } else {
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return seqs[a] < seqs[b]; });
  }
  // The first in issue order follows the widest gap (circularly) between
  // neighbours in numeric order.
  auto gap = [&](std::size_t i) {  // from order[i-1] to order[i], wrapping
    std::size_t prev = i == 0 ? order.size() - 1 : i - 1;
    return static_cast<std::uint32_t>(seqs[order[i]]) - static_cast<std::uint32_t>(seqs[order[prev]]);
  };
  std::size_t start = 0;
  std::uint32_t widest = gap(0);
  for (std::size_t i = 1; i < order.size(); ++i) {
    if (gap(i) > widest) widest = gap(i), start = i;
  }
  std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(start), order.end());
  return order;
}

}  // namespace zksim::recipes
