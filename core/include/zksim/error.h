// ZooKeeper's error codes, with the numbers of the C client's `ZOO_ERRORS`
// (zookeeper.h, 3.8). The list below is the one definition: the enum, the
// names and the fmt formatter are all generated from it.
#pragma once

#include <fmt/format.h>

#include <string_view>

namespace zksim {

#define ZKSIM_ERRORS(X)                       \
  X(Ok, 0, "ZOK")                             \
  X(SystemError, -1, "ZSYSTEMERROR")          \
  X(RuntimeInconsistency, -2, "ZRUNTIMEINCONSISTENCY") \
  X(DataInconsistency, -3, "ZDATAINCONSISTENCY") \
  X(ConnectionLoss, -4, "ZCONNECTIONLOSS")    \
  X(MarshallingError, -5, "ZMARSHALLINGERROR") \
  X(Unimplemented, -6, "ZUNIMPLEMENTED")      \
  X(OperationTimeout, -7, "ZOPERATIONTIMEOUT") \
  X(BadArguments, -8, "ZBADARGUMENTS")        \
  X(InvalidState, -9, "ZINVALIDSTATE")        \
  X(NewConfigNoQuorum, -13, "ZNEWCONFIGNOQUORUM") \
  X(ReconfigInProgress, -14, "ZRECONFIGINPROGRESS") \
  X(SslConnectionError, -15, "ZSSLCONNECTIONERROR") \
  X(ApiError, -100, "ZAPIERROR")              \
  X(NoNode, -101, "ZNONODE")                  \
  X(NoAuth, -102, "ZNOAUTH")                  \
  X(BadVersion, -103, "ZBADVERSION")          \
  X(NoChildrenForEphemerals, -108, "ZNOCHILDRENFOREPHEMERALS") \
  X(NodeExists, -110, "ZNODEEXISTS")          \
  X(NotEmpty, -111, "ZNOTEMPTY")              \
  X(SessionExpired, -112, "ZSESSIONEXPIRED")  \
  X(InvalidCallback, -113, "ZINVALIDCALLBACK") \
  X(InvalidAcl, -114, "ZINVALIDACL")          \
  X(AuthFailed, -115, "ZAUTHFAILED")          \
  X(Closing, -116, "ZCLOSING")                \
  X(Nothing, -117, "ZNOTHING")                \
  X(SessionMoved, -118, "ZSESSIONMOVED")      \
  X(NotReadOnly, -119, "ZNOTREADONLY")        \
  X(EphemeralOnLocalSession, -120, "ZEPHEMERALONLOCALSESSION") \
  X(NoWatcher, -121, "ZNOWATCHER")            \
  X(RequestTimeout, -122, "ZREQUESTTIMEOUT")  \
  X(ReconfigDisabled, -123, "ZRECONFIGDISABLED") \
  X(SessionClosedRequireSaslAuth, -124, "ZSESSIONCLOSEDREQUIRESASLAUTH") \
  X(QuotaExceeded, -125, "ZQUOTAEXCEEDED")    \
  X(ThrottledOp, -127, "ZTHROTTLEDOP")

enum class Error : int {
#define ZKSIM_ERROR_ENUM(name, number, text) name = number,
  ZKSIM_ERRORS(ZKSIM_ERROR_ENUM)
#undef ZKSIM_ERROR_ENUM
};

// The C client's name of the error ("ZNONODE"); "ZUNKNOWN" for a number outside the list.
std::string_view error_name(Error e) noexcept;

// The error with that number, if the list has one.
bool error_from_number(int number, Error& out) noexcept;

}  // namespace zksim

template <>
struct fmt::formatter<zksim::Error> : fmt::formatter<std::string_view> {
  auto format(zksim::Error e, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(zksim::error_name(e), ctx);
  }
};
