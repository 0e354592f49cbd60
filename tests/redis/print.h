// How GoogleTest prints the model's values in a failure.
#pragma once

#include "zksim/redis/state.h"

#include <ostream>

namespace zksim::redis {

inline void PrintTo(const Reply& r, std::ostream* os) { *os << to_string(r); }
inline void PrintTo(const Message& m, std::ostream* os) {
  *os << "{to " << m.to.value << ", " << fmt::format("{:?}", m.channel) << ", " << fmt::format("{:?}", m.payload) << "}";
}

}  // namespace zksim::redis
