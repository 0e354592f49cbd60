#include "zksim/wire/decoded.h"
#include "zksim/wire/opcode.h"

namespace zksim::wire {

std::string_view opcode_name(OpCode code) noexcept {
  switch (code) {
#define ZKSIM_WIRE_OPCODE_NAME(name, number, text) \
  case OpCode::name:                               \
    return text;
    ZKSIM_WIRE_OPCODES(ZKSIM_WIRE_OPCODE_NAME)
#undef ZKSIM_WIRE_OPCODE_NAME
  }
  return "unknown";
}

bool is_opcode(std::int32_t number) noexcept {
  switch (number) {
#define ZKSIM_WIRE_OPCODE_CASE(name, number, text) case number:
    ZKSIM_WIRE_OPCODES(ZKSIM_WIRE_OPCODE_CASE)
#undef ZKSIM_WIRE_OPCODE_CASE
    return true;
  }
  return false;
}

const char* decode_error_name(DecodeError e) noexcept {
  switch (e) {
    case DecodeError::Truncated: return "truncated";
    case DecodeError::BadLength: return "bad length";
    case DecodeError::BadValue: return "bad value";
  }
  return "unknown";
}

}  // namespace zksim::wire
