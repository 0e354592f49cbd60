// The process's recipe registry: zksim's own recipes (builtin_recipes.cpp),
// then whatever a user or a plugin adds.
#include "zksim/scenarios/recipe.h"

#include "builtin_recipes.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <deque>

namespace zksim::scenarios {

namespace {

constexpr std::array<std::string_view, kRecipeFamilies> kFamilyNames{
    "lock", "read-write-lock", "semaphore", "election", "queue", "locking-queue", "barrier", "double-barrier", "custom"};

bool lock_like(RecipeFamily f) {
  return f == RecipeFamily::Lock || f == RecipeFamily::ReadWriteLock || f == RecipeFamily::Semaphore ||
         f == RecipeFamily::Election;
}

std::string problem_of(const Recipe& r, const std::deque<Recipe>& known);

// A deque: a Recipe found stays where it is while others are added.
std::deque<Recipe>& registry() {
  static std::deque<Recipe> all = [] {
    std::deque<Recipe> builtin;
    for (Recipe& r : detail::builtin_recipes()) {
      // zksim's own recipes pass the same checks as anyone's; one that does
      // not is a bug in this file's table, not an input.
      if (std::string why = problem_of(r, builtin); !why.empty()) {
        std::fprintf(stderr, "zksim: built-in %s\n", why.c_str());
        std::abort();
      }
      builtin.push_back(std::move(r));
    }
    return builtin;
  }();
  return all;
}

// Why `r` cannot be registered ("" if it can), the registry as it is.
std::string problem_of(const Recipe& r, const std::deque<Recipe>& known) {
  if (r.name.empty()) return "a recipe needs a name";
  const bool well_formed = std::all_of(r.name.begin(), r.name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '/' || c == '.';
  });
  if (!well_formed) {
    return fmt::format("recipe name '{}' may hold only letters, digits and '-', '_', '/', '.'", r.name);
  }
  if (std::any_of(known.begin(), known.end(), [&](const Recipe& k) { return k.name == r.name; })) {
    return fmt::format("recipe '{}' is registered already", r.name);
  }
  const int families = static_cast<int>(r.family);
  if (families < 0 || families >= kRecipeFamilies) return fmt::format("recipe '{}': no such family", r.name);
  const bool lock = lock_like(r.family);
  const bool queue = r.family == RecipeFamily::Queue || r.family == RecipeFamily::LockingQueue;
  const bool has[] = {static_cast<bool>(r.make_lock), static_cast<bool>(r.make_queue),
                      static_cast<bool>(r.make_barrier), static_cast<bool>(r.make_double_barrier)};
  const bool needs[] = {lock, queue, r.family == RecipeFamily::Barrier, r.family == RecipeFamily::DoubleBarrier};
  static constexpr const char* kFactories[] = {"make_lock", "make_queue", "make_barrier", "make_double_barrier"};
  for (int i = 0; i < 4; ++i) {
    if (needs[i] && !has[i]) {
      return fmt::format("recipe '{}' of family {} needs {}", r.name, family_name(r.family), kFactories[i]);
    }
    if (!needs[i] && has[i]) {
      return fmt::format("recipe '{}' of family {} has {}, which only another family uses", r.name,
                         family_name(r.family), kFactories[i]);
    }
  }
  if (r.traits.reentrant && r.family != RecipeFamily::Lock && r.family != RecipeFamily::ReadWriteLock) {
    return fmt::format("recipe '{}': only a lock or a read/write lock can be reentrant", r.name);
  }
  if (r.traits.tells_loss && !lock) return fmt::format("recipe '{}': only lock-like recipes tell of a loss", r.name);
  if (r.traits.contract == Contract::Listener && !r.traits.tells_loss) {
    return fmt::format("recipe '{}': a caller heeding the connection (Contract::Listener) needs traits.tells_loss",
                       r.name);
  }
  if (r.family == RecipeFamily::ReadWriteLock && !r.traits.write_node) {
    return fmt::format("recipe '{}': a read/write lock needs traits.write_node", r.name);
  }
  if (queue && r.traits.item_marker.empty()) return fmt::format("recipe '{}': a queue needs traits.item_marker", r.name);
  if (r.family == RecipeFamily::LockingQueue && (r.traits.items_dir.empty() || r.traits.claims_dir.empty())) {
    return fmt::format("recipe '{}': a locking queue needs traits.items_dir and traits.claims_dir", r.name);
  }
  if (r.family == RecipeFamily::DoubleBarrier && r.traits.ready_node.empty()) {
    return fmt::format("recipe '{}': a double barrier needs traits.ready_node", r.name);
  }
  const bool custom = r.family == RecipeFamily::Custom;
  if (custom != r.custom.has_value()) {
    return custom ? fmt::format("recipe '{}' of family custom needs custom (its spawn and check)", r.name)
                  : fmt::format("recipe '{}' of family {} has custom, which only the custom family uses", r.name,
                                family_name(r.family));
  }
  if (custom && (!r.custom->spawn || !r.custom->check)) {
    return fmt::format("recipe '{}': custom needs both spawn and check", r.name);
  }
  if (custom) {
    for (const std::string& p : r.custom->properties) {
      if (p.empty() || p == kBadWorkload) return fmt::format("recipe '{}': '{}' cannot name a property", r.name, p);
    }
  }
  if (r.flaw && r.flaw->property.empty()) return fmt::format("recipe '{}': its flaw names no property", r.name);
  if (r.flaw && custom && !property_named(r.flaw->property) &&
      std::find(r.custom->properties.begin(), r.custom->properties.end(), r.flaw->property) ==
          r.custom->properties.end()) {
    return fmt::format("recipe '{}': its flaw breaks '{}', which its check does not report", r.name, r.flaw->property);
  }
  return {};
}

}  // namespace

std::string_view family_name(RecipeFamily family) {
  const auto i = static_cast<std::size_t>(family);
  return i < kFamilyNames.size() ? kFamilyNames[i] : "?";
}

std::optional<RecipeFamily> family_named(std::string_view name) {
  for (std::size_t i = 0; i < kFamilyNames.size(); ++i) {
    if (kFamilyNames[i] == name) return static_cast<RecipeFamily>(i);
  }
  return std::nullopt;
}

std::string register_recipe(Recipe recipe) {
  std::deque<Recipe>& all = registry();
  if (std::string why = problem_of(recipe, all); !why.empty()) return why;
  all.push_back(std::move(recipe));
  return {};
}

const Recipe* find_recipe(std::string_view name) {
  for (const Recipe& r : registry()) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

const std::deque<Recipe>& registered_recipes() { return registry(); }

}  // namespace zksim::scenarios
