// ZooKeeper's request types (ZooDefs.OpCode in 3.8) and the xids with a
// meaning of their own (ClientCnxn and the C client's zk_adaptor.h).
#pragma once

#include <cstdint>
#include <string_view>

namespace zksim::wire {

#define ZKSIM_WIRE_OPCODES(X)                   \
  X(Notification, 0, "notification")           \
  X(Create, 1, "create")                        \
  X(Delete, 2, "delete")                        \
  X(Exists, 3, "exists")                        \
  X(GetData, 4, "getData")                      \
  X(SetData, 5, "setData")                      \
  X(GetAcl, 6, "getACL")                        \
  X(SetAcl, 7, "setACL")                        \
  X(GetChildren, 8, "getChildren")              \
  X(Sync, 9, "sync")                            \
  X(Ping, 11, "ping")                           \
  X(GetChildren2, 12, "getChildren2")           \
  X(Check, 13, "check")                         \
  X(Multi, 14, "multi")                         \
  X(Create2, 15, "create2")                     \
  X(Reconfig, 16, "reconfig")                   \
  X(CheckWatches, 17, "checkWatches")           \
  X(RemoveWatches, 18, "removeWatches")         \
  X(CreateContainer, 19, "createContainer")     \
  X(DeleteContainer, 20, "deleteContainer")     \
  X(CreateTtl, 21, "createTTL")                 \
  X(MultiRead, 22, "multiRead")                 \
  X(Auth, 100, "auth")                          \
  X(SetWatches, 101, "setWatches")              \
  X(Sasl, 102, "sasl")                          \
  X(GetEphemerals, 103, "getEphemerals")        \
  X(GetAllChildrenNumber, 104, "getAllChildrenNumber") \
  X(SetWatches2, 105, "setWatches2")            \
  X(AddWatch, 106, "addWatch")                  \
  X(WhoAmI, 107, "whoAmI")                      \
  X(CreateSession, -10, "createSession")        \
  X(CloseSession, -11, "closeSession")          \
  X(Error, -1, "error")

enum class OpCode : std::int32_t {
#define ZKSIM_WIRE_OPCODE_ENUM(name, number, text) name = number,
  ZKSIM_WIRE_OPCODES(ZKSIM_WIRE_OPCODE_ENUM)
#undef ZKSIM_WIRE_OPCODE_ENUM
};

// ZooDefs.OpCode's name ("getChildren2"); "unknown" for a number not in it.
std::string_view opcode_name(OpCode code) noexcept;
// True for every number of the list above.
bool is_opcode(std::int32_t number) noexcept;

// Reply xids the client recognises, and the request xids that go with them.
inline constexpr std::int32_t kNotificationXid = -1;  // a watch event, never a request
inline constexpr std::int32_t kPingXid = -2;
inline constexpr std::int32_t kAuthXid = -4;
// The C client sends setWatches with this xid; the 3.8 Java client gives
// setWatches and setWatches2 an ordinary one (ClientCnxnSocketNIO.doIO sets
// a fresh xid on every packet but ping and auth). The server echoes either.
inline constexpr std::int32_t kSetWatchesXid = -8;

}  // namespace zksim::wire
