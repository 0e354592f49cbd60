// The example's recipes for the zksim program: zksim explore --plugin libmy_lock_plugin.so ...
#include "recipes.h"
#include "zksim/scenarios/plugin.h"

ZKSIM_PLUGIN("my-lock", example::recipes)
