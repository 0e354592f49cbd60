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
  sort_in_issue_order(order, [&](std::size_t i) { return seqs[i]; });
  return order;
}

}  // namespace zksim::recipes
