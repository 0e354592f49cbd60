// googletest matchers over a harness Report (harness.h), one line per
// property; a failure prints the violation, its scenario file and the
// command that replays it. Header-only: link GTest::gmock yourself.
//
//   const zksim::scenarios::Report report = zksim::scenarios::check("my/lock", options);
//   EXPECT_THAT(report, zksim::scenarios::Holds("mutual-exclusion"));
//   EXPECT_THAT(report, zksim::scenarios::Holds("liveness"));
//   EXPECT_THAT(report, zksim::scenarios::HoldsEveryProperty());
//   EXPECT_THAT(buggy, zksim::scenarios::Violates("mutual-exclusion"));
#pragma once

#include "zksim/scenarios/harness.h"

#include <gmock/gmock.h>

#include <ostream>
#include <string>

namespace zksim::scenarios {

// How googletest prints a Report: its text.
inline void PrintTo(const Report& r, std::ostream* os) { *os << "\n" << r.text(); }

namespace detail {

// What a report says of `property`, for a matcher's explanation.
inline std::string explain(const Report& r, const std::string& property) {
  if (!r.error.empty()) return "the check did not run: " + r.error;
  const PropertyVerdict* v = r.find(property);
  if (!v) return "the recipe's runs do not check " + property;
  if (v->holds) return property + " held in " + std::to_string(r.runs) + " runs";
  std::string out = property + " was violated under " + v->fault + ": " + v->finding.violation.message;
  if (!v->scenario_file.empty()) out += "\n  scenario: " + v->scenario_file + "\n  replay:   " + v->replay;
  return out;
}

class PropertyMatcher {
 public:
  using is_gtest_matcher = void;
  PropertyMatcher(std::string property, bool holds) : property_(std::move(property)), holds_(holds) {}
  bool MatchAndExplain(const Report& r, std::ostream* os) const {
    if (os) *os << explain(r, property_);
    const PropertyVerdict* v = r.error.empty() ? r.find(property_) : nullptr;
    return v && v->holds == holds_;
  }
  void DescribeTo(std::ostream* os) const { *os << (holds_ ? "holds " : "violates ") << property_; }
  void DescribeNegationTo(std::ostream* os) const { *os << (holds_ ? "does not hold " : "does not violate ") << property_; }

 private:
  std::string property_;
  bool holds_;
};

class EveryPropertyMatcher {
 public:
  using is_gtest_matcher = void;
  bool MatchAndExplain(const Report& r, std::ostream* os) const {
    if (!r.error.empty()) {
      if (os) *os << "the check did not run: " << r.error;
      return false;
    }
    bool all = true;
    for (const PropertyVerdict& v : r.properties) {
      if (v.holds) continue;
      if (os) *os << (all ? "" : "\n") << explain(r, v.property);
      all = false;
    }
    return all;
  }
  void DescribeTo(std::ostream* os) const { *os << "holds every property its runs check"; }
  void DescribeNegationTo(std::ostream* os) const { *os << "violates some property"; }
};

}  // namespace detail

// Checked, and never violated.
inline ::testing::Matcher<const Report&> Holds(std::string property) {
  return detail::PropertyMatcher(std::move(property), true);
}
// Checked, and violated (a flawed recipe caught).
inline ::testing::Matcher<const Report&> Violates(std::string property) {
  return detail::PropertyMatcher(std::move(property), false);
}
inline ::testing::Matcher<const Report&> HoldsEveryProperty() { return detail::EveryPropertyMatcher(); }

}  // namespace zksim::scenarios
