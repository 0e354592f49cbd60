// Shared by the property tests: the harness's rapidcheck integration
// (zksim/scenarios/rapidcheck.h), failing cases written in the build tree.
#pragma once
#include "zksim/scenarios/rapidcheck.h"

#include <gtest/gtest.h>

namespace zksim::scenarios {

inline void holds_every_property(const std::string& recipe) { holds_every_property(recipe, ZKSIM_FAILURES_DIR); }

}  // namespace zksim::scenarios
