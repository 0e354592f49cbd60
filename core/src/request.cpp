#include "zksim/request.h"

#include <array>

namespace zksim {

namespace {

struct Kind {
  std::int32_t opcode;
  std::string_view name;
};

#define ZKSIM_REQUEST_KIND(T, OPCODE, NAME) Kind{OPCODE, NAME}
constexpr std::array<Kind, kRequestKinds> kKinds{ZKSIM_REQUESTS(ZKSIM_REQUEST_KIND, ZKSIM_REQUEST_COMMA)};
#undef ZKSIM_REQUEST_KIND

// Each entry is where the variant has its type.
#define ZKSIM_REQUEST_IN_ORDER(T, OPCODE, NAME) \
  static_assert(kKinds[request_kind<T>].name == NAME, "ZKSIM_REQUESTS and Request disagree on " NAME);
ZKSIM_REQUESTS(ZKSIM_REQUEST_IN_ORDER, ZKSIM_REQUEST_NOTHING)
#undef ZKSIM_REQUEST_IN_ORDER

bool known(std::int32_t kind) { return kind >= 0 && kind < kRequestKinds; }

}  // namespace

std::string_view request_kind_name(std::int32_t kind) {
  return known(kind) ? kKinds[static_cast<std::size_t>(kind)].name : "?";
}

std::int32_t request_opcode(std::int32_t kind) {
  return known(kind) ? kKinds[static_cast<std::size_t>(kind)].opcode : -1;
}

std::string_view path_of(const Request& r) {
  return std::visit(
      [](const auto& q) -> std::string_view {
        using Q = std::decay_t<decltype(q)>;
        if constexpr (std::is_same_v<Q, MultiRequest>) {
          if (q.ops.empty()) return {};
          return std::visit([](const auto& op) -> std::string_view { return op.path; }, q.ops.front());
        } else if constexpr (std::is_same_v<Q, SetWatchesRequest>) {
          return {};
        } else if constexpr (std::is_same_v<Q, GetEphemeralsRequest>) {
          return q.prefix;
        } else {
          return q.path;
        }
      },
      r);
}

}  // namespace zksim
