// Private: zksim's own recipes, correct and flawed, as the registry
// (recipe.h) first holds them, in the order `zksim list` shows them.
#pragma once

#include "zksim/scenarios/recipe.h"

#include <vector>

namespace zksim::scenarios::detail {

std::vector<Recipe> builtin_recipes();

}  // namespace zksim::scenarios::detail
