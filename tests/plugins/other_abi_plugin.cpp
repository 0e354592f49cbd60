// A plugin built for another plugin ABI than this zksim's: refused.
#include "zksim/scenarios/plugin.h"

namespace {
std::vector<zksim::scenarios::Recipe> none() { return {}; }
}  // namespace

extern "C" __attribute__((visibility("default"))) const zksim::scenarios::PluginInfo* zksim_plugin_info() {
  static const zksim::scenarios::PluginInfo info{999, ZKSIM_VERSION, _GLIBCXX_USE_CXX11_ABI,
                                                 sizeof(zksim::scenarios::Recipe), "other-abi", none};
  return &info;
}
