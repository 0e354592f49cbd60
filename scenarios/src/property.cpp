#include "zksim/scenarios/property.h"

#include <array>

namespace zksim::scenarios {

namespace {

struct Entry {
  std::string name;
  Severity severity;
  std::string_view summary;
};

const std::array<Entry, kProperties>& table() {
  static const std::array<Entry, kProperties> all{{
#define ZKSIM_PROPERTY_ENTRY(ID, NAME, CLASS, SUMMARY) Entry{NAME, Severity::CLASS, SUMMARY},
      ZKSIM_PROPERTIES(ZKSIM_PROPERTY_ENTRY)
#undef ZKSIM_PROPERTY_ENTRY
  }};
  return all;
}

}  // namespace

const std::string& name(Property p) { return table()[static_cast<std::size_t>(p)].name; }

std::string_view summary(Property p) { return table()[static_cast<std::size_t>(p)].summary; }

Severity severity(Property p) { return table()[static_cast<std::size_t>(p)].severity; }

Severity severity_of(std::string_view property) {
  const std::optional<Property> p = property_named(property);
  return p ? severity(*p) : Severity::Safety;
}

std::string_view severity_name(Severity s) {
  constexpr std::array<std::string_view, 3> kNames{"safety", "liveness", "efficiency"};
  return kNames[static_cast<std::size_t>(s)];
}

std::optional<Severity> severity_named(std::string_view name) {
  for (Severity s : {Severity::Safety, Severity::Liveness, Severity::Efficiency}) {
    if (severity_name(s) == name) return s;
  }
  return std::nullopt;
}

std::optional<Property> property_named(std::string_view name) {
  for (std::size_t i = 0; i < table().size(); ++i) {
    if (table()[i].name == name) return static_cast<Property>(i);
  }
  return std::nullopt;
}

}  // namespace zksim::scenarios
