#include "zksim/etcd/types.h"

namespace zksim::etcd {

int grpc_code(Error e) noexcept {
  switch (e) {
#define ZKSIM_ETCD_ERROR_CODE(name, code, message) \
  case Error::name:                                \
    return code;
    ZKSIM_ETCD_ERRORS(ZKSIM_ETCD_ERROR_CODE)
#undef ZKSIM_ETCD_ERROR_CODE
  }
  return 2;  // gRPC Unknown
}

std::string_view error_message(Error e) noexcept {
  switch (e) {
#define ZKSIM_ETCD_ERROR_MESSAGE(name, code, message) \
  case Error::name:                                   \
    return message;
    ZKSIM_ETCD_ERRORS(ZKSIM_ETCD_ERROR_MESSAGE)
#undef ZKSIM_ETCD_ERROR_MESSAGE
  }
  return "unknown";
}

// clientv3.getPrefix: the prefix with its last byte below 0xff incremented
// and what follows dropped; "\0" (every key) when all bytes are 0xff.
std::string prefix_end(std::string_view prefix) {
  std::string end(prefix);
  for (auto i = end.size(); i-- > 0;) {
    if (static_cast<unsigned char>(end[i]) < 0xff) {
      end[i] = static_cast<char>(static_cast<unsigned char>(end[i]) + 1);
      end.resize(i + 1);
      return end;
    }
  }
  return std::string(1, '\0');
}

}  // namespace zksim::etcd
