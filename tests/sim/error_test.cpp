#include "zksim/error.h"
#include "zksim/request.h"
#include "zksim/result.h"
#include "zksim/types.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <set>

namespace zksim {
namespace {

TEST(Error, NumbersAreZooKeepersOwn) {
  EXPECT_EQ(static_cast<int>(Error::Ok), 0);
  EXPECT_EQ(static_cast<int>(Error::ConnectionLoss), -4);
  EXPECT_EQ(static_cast<int>(Error::BadArguments), -8);
  EXPECT_EQ(static_cast<int>(Error::NoNode), -101);
  EXPECT_EQ(static_cast<int>(Error::NoAuth), -102);
  EXPECT_EQ(static_cast<int>(Error::BadVersion), -103);
  EXPECT_EQ(static_cast<int>(Error::NoChildrenForEphemerals), -108);
  EXPECT_EQ(static_cast<int>(Error::NodeExists), -110);
  EXPECT_EQ(static_cast<int>(Error::NotEmpty), -111);
  EXPECT_EQ(static_cast<int>(Error::SessionExpired), -112);
  EXPECT_EQ(static_cast<int>(Error::InvalidAcl), -114);
  EXPECT_EQ(static_cast<int>(Error::NoWatcher), -121);
}

TEST(Error, NameAndFormatterComeFromTheOneList) {
  EXPECT_EQ(error_name(Error::NoNode), "ZNONODE");
  EXPECT_EQ(fmt::format("{}", Error::NodeExists), "ZNODEEXISTS");
  EXPECT_EQ(fmt::format("[{:>8}]", Error::Ok), "[     ZOK]");
  EXPECT_EQ(error_name(static_cast<Error>(-999)), "ZUNKNOWN");
}

TEST(Error, NumberRoundTrips) {
  Error e{};
  ASSERT_TRUE(error_from_number(-110, e));
  EXPECT_EQ(e, Error::NodeExists);
  EXPECT_FALSE(error_from_number(-999, e));
}

// ZKSIM_REQUESTS (request.h): each request kind with ZooKeeper's opcode
// (ZooDefs.OpCode) and its name, in the order of the Request variant.
TEST(Requests, EveryKindHasZooKeepersOpcodeAndName) {
  EXPECT_EQ(kRequestKinds, static_cast<std::int32_t>(std::variant_size_v<Request>));
  EXPECT_EQ(request_opcode(request_kind<CreateRequest>), 1);
  EXPECT_EQ(request_opcode(request_kind<GetChildrenRequest>), 8);
  EXPECT_EQ(request_opcode(request_kind<MultiRequest>), 14);
  EXPECT_EQ(request_opcode(request_kind<SetWatchesRequest>), 101);
  EXPECT_EQ(request_opcode(request_kind<AddWatchRequest>), 106);
  EXPECT_EQ(request_kind_name(request_kind<GetAclRequest>), "getACL");
  std::set<std::string_view> names;
  std::set<std::int32_t> opcodes;
  for (std::int32_t k = 0; k < kRequestKinds; ++k) {
    names.insert(request_kind_name(k));
    opcodes.insert(request_opcode(k));
  }
  EXPECT_EQ(names.size(), static_cast<std::size_t>(kRequestKinds));
  EXPECT_EQ(opcodes.size(), static_cast<std::size_t>(kRequestKinds));
  EXPECT_EQ(request_kind_name(kRequestKinds), "?");
  EXPECT_EQ(request_opcode(-1), -1);
}

TEST(Result, HoldsAValueOrAnError) {
  Result<int> good = 7;
  Result<int> bad = Error::NoNode;
  EXPECT_TRUE(good.ok());
  EXPECT_EQ(*good, 7);
  EXPECT_EQ(good.error(), Error::Ok);
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.error(), Error::NoNode);
  Result<void> done;
  EXPECT_TRUE(done.ok());
  EXPECT_EQ(Result<void>(Error::BadVersion).error(), Error::BadVersion);
}

TEST(Types, IdsAreDistinctAndOrdered) {
  static_assert(!std::is_convertible_v<SessionId, Zxid>);
  static_assert(!std::is_convertible_v<std::int64_t, Zxid>);
  EXPECT_LT(Zxid{1}, Zxid{2});
  EXPECT_EQ(fmt::format("{}", Version{-1}), "-1");
}

}  // namespace
}  // namespace zksim
