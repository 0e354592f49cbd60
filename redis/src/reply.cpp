#include "zksim/redis/reply.h"

namespace zksim::redis {

std::string to_string(const Reply& r) {
  switch (r.type) {
    case Reply::Type::Nil: return "(nil)";
    case Reply::Type::Integer: return fmt::format("(integer) {}", r.integer);
    case Reply::Type::Status: return r.text;
    case Reply::Type::Bulk: return fmt::format("{:?}", r.text);
    case Reply::Type::Error: return fmt::format("(error) {}", r.text);
    case Reply::Type::Array: {
      std::string out = "[";
      for (std::size_t i = 0; i < r.elements.size(); ++i) {
        if (i) out += ", ";
        out += to_string(r.elements[i]);
      }
      return out + "]";
    }
  }
  return "(unknown reply type)";
}

}  // namespace zksim::redis
