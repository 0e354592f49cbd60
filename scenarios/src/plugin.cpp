#include "zksim/scenarios/plugin.h"

#include <fmt/format.h>

#include <dlfcn.h>

#include <filesystem>
#include <set>

namespace zksim::scenarios {

namespace {

// What this zksim was built with, to compare a plugin's PluginInfo with.
constexpr PluginInfo kHost{kPluginAbi, ZKSIM_VERSION, _GLIBCXX_USE_CXX11_ABI, sizeof(Recipe), "zksim", nullptr};

std::string mismatch(const PluginInfo& p) {
  if (p.abi != kHost.abi) return fmt::format("plugin ABI {}, this zksim has {}", p.abi, kHost.abi);
  if (std::string(p.zksim_version) != kHost.zksim_version) {
    return fmt::format("zksim {}, this is zksim {}", p.zksim_version, kHost.zksim_version);
  }
  if (p.cxx11_string_abi != kHost.cxx11_string_abi) return "another std::string ABI (_GLIBCXX_USE_CXX11_ABI)";
  if (p.recipe_size != kHost.recipe_size) return "another layout of zksim::scenarios::Recipe";
  return {};
}

}  // namespace

std::string load_plugin(const std::string& path) {
  static std::set<std::string> loaded;  // absolute paths
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return fmt::format("{}: no such plugin file", path);
  const std::string absolute = std::filesystem::canonical(path, ec).string();
  if (ec) return fmt::format("{}: {}", path, ec.message());
  if (loaded.count(absolute)) return {};
  // Kept open for the life of the process: its recipes' code lives there.
  void* handle = dlopen(absolute.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return fmt::format("{}: cannot load it: {}", path, dlerror());
  using Entry = const PluginInfo* (*)();
  auto entry = reinterpret_cast<Entry>(dlsym(handle, "zksim_plugin_info"));
  if (!entry) return fmt::format("{}: not a zksim plugin (no zksim_plugin_info; see zksim/scenarios/plugin.h)", path);
  const PluginInfo* info = entry();
  if (!info) return fmt::format("{}: its zksim_plugin_info gave nothing", path);
  if (std::string why = mismatch(*info); !why.empty()) {
    return fmt::format("{}: built for {}; rebuild it against this zksim's headers", path, why);
  }
  if (!info->recipes) return fmt::format("{}: plugin '{}' names no recipe function", path, info->name);
  for (Recipe& r : info->recipes()) {
    r.origin = absolute;
    if (std::string why = register_recipe(std::move(r)); !why.empty()) {
      return fmt::format("{}: plugin '{}': {}", path, info->name, why);
    }
  }
  loaded.insert(absolute);
  return {};
}

}  // namespace zksim::scenarios
