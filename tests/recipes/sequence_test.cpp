// Sequence suffixes and issue order: sequence_after and issue_order against
// the plain definitions they are written to match (a search for the last
// marker, a stable sort), on hand-picked names and on generated ones.
#include "zksim/recipes/sequence.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace zksim::test {
namespace {

using recipes::issue_order;
using recipes::sequence_after;

// The definition: what follows the last occurrence of the marker, if it is
// exactly what "%010d" prints.
std::optional<std::int32_t> model_sequence_after(std::string_view name, std::string_view marker) {
  std::size_t at = name.rfind(marker);
  if (at == std::string_view::npos) return std::nullopt;
  std::string suffix(name.substr(at + marker.size()));
  if (suffix.empty() || suffix.size() > 11) return std::nullopt;
  bool negative = suffix.front() == '-';
  std::string digits = negative ? suffix.substr(1) : suffix;
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  std::int64_t v = std::stoll(digits) * (negative ? -1 : 1);
  if (v < INT32_MIN || v > INT32_MAX) return std::nullopt;
  char printed[16];
  std::snprintf(printed, sizeof printed, "%010d", static_cast<int>(v));
  if (suffix != printed) return std::nullopt;
  return static_cast<std::int32_t>(v);
}

// The definition: numeric order, stable, cut at the widest circular gap.
std::vector<std::size_t> model_issue_order(const std::vector<std::int32_t>& seqs) {
  std::vector<std::size_t> order(seqs.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (seqs.size() < 2) return order;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return seqs[a] < seqs[b]; });
  std::size_t start = 0;
  std::uint32_t widest = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    std::size_t prev = i == 0 ? order.size() - 1 : i - 1;
    std::uint32_t gap = static_cast<std::uint32_t>(seqs[order[i]]) - static_cast<std::uint32_t>(seqs[order[prev]]);
    if (i == 0 || gap > widest) widest = gap, start = i;
  }
  std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(start), order.end());
  return order;
}

TEST(SequenceAfter, ReadsTheSuffixAfterTheLastMarker) {
  EXPECT_EQ(sequence_after("_c_1f-3-lock-0000000042", "lock-"), 42);
  EXPECT_EQ(sequence_after("lock-2147483647", "lock-"), 2147483647);
  EXPECT_EQ(sequence_after("lock--2147483648", "lock-"), -2147483647 - 1);
  EXPECT_EQ(sequence_after("lock--000000042", "lock-"), -42);
  EXPECT_EQ(sequence_after("read-lock-0000000001", "lock-"), 1);
  EXPECT_EQ(sequence_after("0000000007", ""), std::nullopt);  // an empty marker is everywhere
}

TEST(SequenceAfter, RefusesWhatPrintfWouldNotPrint) {
  EXPECT_EQ(sequence_after("lock-000000042", "lock-"), std::nullopt);    // 9 digits
  EXPECT_EQ(sequence_after("lock-00000000042", "lock-"), std::nullopt);  // 11 digits
  EXPECT_EQ(sequence_after("lock-00000000x2", "lock-"), std::nullopt);
  EXPECT_EQ(sequence_after("lock--0000000042", "lock-"), std::nullopt);  // 11 with a sign, too small
  EXPECT_EQ(sequence_after("lock-", "lock-"), std::nullopt);
  EXPECT_EQ(sequence_after("write-0000000001", "read-"), std::nullopt);
}

TEST(SequenceAfter, OnlyTheLastMarkerCounts) {
  // A later marker inside what would be the suffix: that one is the last.
  EXPECT_EQ(sequence_after("n-0000000001", "0"), std::nullopt);
  EXPECT_EQ(sequence_after("x1-1000000000", "1"), std::nullopt);
  EXPECT_EQ(sequence_after("ab-ab0000000003", "ab"), 3);
  EXPECT_EQ(sequence_after("ab0000000003-ab", "ab"), std::nullopt);
}

TEST(IssueOrder, SortsStablyAndCutsAtTheWidestGap) {
  EXPECT_EQ(issue_order({3, 1, 2}), (std::vector<std::size_t>{1, 2, 0}));
  EXPECT_EQ(issue_order({5, 5, 4}), (std::vector<std::size_t>{2, 0, 1}));
  // Across the wrap: 2147483647 was issued before -2147483648.
  EXPECT_EQ(issue_order({-2147483647 - 1, 2147483647, 2147483646}),
            (std::vector<std::size_t>{2, 1, 0}));
}

rc::Gen<std::string> gen_name() {
  // Short alphabets make markers, digits and signs collide often.
  return rc::gen::container<std::string>(rc::gen::element('a', 'b', '-', '0', '1', '9'));
}

RC_GTEST_PROP(SequenceAfter, MatchesItsDefinition, ()) {
  const auto marker = *rc::gen::container<std::string>(rc::gen::element('a', 'b', '-', '0'));
  const auto prefix = *gen_name();
  // Often a real suffix, sometimes anything.
  const auto value = *rc::gen::arbitrary<std::int32_t>();
  char printed[16];
  std::snprintf(printed, sizeof printed, "%010d", static_cast<int>(value));
  const auto tail = *rc::gen::oneOf(rc::gen::just(std::string(printed)), gen_name());
  const std::string name = prefix + marker + tail;
  RC_ASSERT(sequence_after(name, marker) == model_sequence_after(name, marker));
}

RC_GTEST_PROP(IssueOrder, MatchesItsDefinition, ()) {
  // Values close together (ties, wrap-around) and far apart; sizes on both
  // sides of the small-input path.
  const auto base = *rc::gen::arbitrary<std::int32_t>();
  const auto seqs = *rc::gen::container<std::vector<std::int32_t>>(rc::gen::map(
      rc::gen::inRange<std::int32_t>(0, 40),
      [base](std::int32_t d) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(base) + static_cast<std::uint32_t>(d)); }));
  RC_ASSERT(issue_order(seqs) == model_issue_order(seqs));
}

RC_GTEST_PROP(SortInIssueOrder, MovesItemsAsIssueOrderOrdersTheirNumbers, ()) {
  const auto base = *rc::gen::arbitrary<std::int32_t>();
  const auto seqs = *rc::gen::container<std::vector<std::int32_t>>(rc::gen::map(
      rc::gen::inRange<std::int32_t>(0, 40),
      [base](std::int32_t d) { return static_cast<std::int32_t>(static_cast<std::uint32_t>(base) + static_cast<std::uint32_t>(d)); }));
  // Items carry their original index, so stability shows.
  std::vector<std::pair<std::int32_t, std::string>> items;
  for (std::size_t i = 0; i < seqs.size(); ++i) items.emplace_back(seqs[i], std::to_string(i));
  recipes::sort_in_issue_order(items, [](const auto& item) { return item.first; });
  std::vector<std::pair<std::int32_t, std::string>> expected;
  for (std::size_t i : model_issue_order(seqs)) expected.emplace_back(seqs[i], std::to_string(i));
  RC_ASSERT(items == expected);
}

}  // namespace
}  // namespace zksim::test
