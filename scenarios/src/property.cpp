#include "zksim/scenarios/property.h"

#include <array>

namespace zksim::scenarios {

namespace {

struct Entry {
  std::string name;
  std::string_view summary;
};

const std::array<Entry, kProperties>& table() {
  static const std::array<Entry, kProperties> all{{
#define ZKSIM_PROPERTY_ENTRY(ID, NAME, SUMMARY) Entry{NAME, SUMMARY},
      ZKSIM_PROPERTIES(ZKSIM_PROPERTY_ENTRY)
#undef ZKSIM_PROPERTY_ENTRY
  }};
  return all;
}

}  // namespace

const std::string& name(Property p) { return table()[static_cast<std::size_t>(p)].name; }

std::string_view summary(Property p) { return table()[static_cast<std::size_t>(p)].summary; }

std::optional<Property> property_named(std::string_view name) {
  for (std::size_t i = 0; i < table().size(); ++i) {
    if (table()[i].name == name) return static_cast<Property>(i);
  }
  return std::nullopt;
}

}  // namespace zksim::scenarios
