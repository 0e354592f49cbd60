// Plugins: a shared library of recipes the zksim program loads at run time
// (`zksim explore --plugin libmy_recipes.so --recipe my/lock`, or a
// scenario file's `plugin FILE` line). It registers its recipes through
// one entry point:
//
//   #include "zksim/scenarios/plugin.h"
//   std::vector<zksim::scenarios::Recipe> my_recipes() { ... }   // recipe.h
//   ZKSIM_PLUGIN("my-recipes", my_recipes)
//
// Build it as a MODULE library linking zksim::plugin (the headers only: its
// calls into zksim resolve against the zksim program that loads it), with
// the same compiler and standard library as zksim. zksim refuses a plugin
// built against other headers: another plugin ABI, another zksim version,
// another std::string ABI or another layout of Recipe.
#pragma once

#include "zksim/scenarios/recipe.h"
#include "zksim/version.h"

#include <string>
#include <vector>

namespace zksim::scenarios {

// Bumped whenever what crosses the boundary (recipe.h, client.h, task.h)
// changes shape.
inline constexpr int kPluginAbi = 4;

struct PluginInfo {
  int abi;                        // kPluginAbi of the plugin's headers
  const char* zksim_version;      // ZKSIM_VERSION of the plugin's headers
  int cxx11_string_abi;           // _GLIBCXX_USE_CXX11_ABI it was built with
  std::size_t recipe_size;        // sizeof(Recipe) it was built with
  const char* name;               // the plugin's name, for messages
  std::vector<Recipe> (*recipes)();  // the recipes it adds
};

// Loads the plugin at `path` (once per file) and registers its recipes,
// each with origin set to the file's absolute path: "" when loaded, else
// one line saying why not (no such file, not a shared library, not a zksim
// plugin, built for another ABI or version, a recipe refused).
std::string load_plugin(const std::string& path);

}  // namespace zksim::scenarios

// The entry point zksim looks for: `NAME` a string, `RECIPES` a function
// returning std::vector<zksim::scenarios::Recipe>.
#define ZKSIM_PLUGIN(NAME, RECIPES)                                                                          \
  extern "C" __attribute__((visibility("default"))) const ::zksim::scenarios::PluginInfo* zksim_plugin_info() { \
    static const ::zksim::scenarios::PluginInfo info{::zksim::scenarios::kPluginAbi, ZKSIM_VERSION,            \
                                                     _GLIBCXX_USE_CXX11_ABI, sizeof(::zksim::scenarios::Recipe), \
                                                     NAME, RECIPES};                                           \
    return &info;                                                                                              \
  }
