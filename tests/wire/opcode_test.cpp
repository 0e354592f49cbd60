// The simulator's request kinds (ZKSIM_REQUESTS, request.h) and the wire's
// opcodes (ZKSIM_WIRE_OPCODES) name the same ZooKeeper operations.
#include "zksim/request.h"
#include "zksim/wire/opcode.h"

#include <gtest/gtest.h>

namespace zksim::wire {
namespace {

TEST(Opcodes, EveryRequestKindIsTheWireOpcodeOfTheSameName) {
  for (std::int32_t kind = 0; kind < kRequestKinds; ++kind) {
    const std::int32_t op = request_opcode(kind);
    ASSERT_TRUE(is_opcode(op)) << request_kind_name(kind);
    EXPECT_EQ(opcode_name(static_cast<OpCode>(op)), request_kind_name(kind));
  }
}

}  // namespace
}  // namespace zksim::wire
