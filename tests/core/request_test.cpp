// What the request list's helpers say of a request (core/include/zksim/request.h).
#include "zksim/request.h"

#include <gtest/gtest.h>

namespace zksim {
namespace {

TEST(PathOf, ARequestNamesItsOwnPath) {
  EXPECT_EQ(path_of(Request{GetDataRequest{.path = "/a/b"}}), "/a/b");
  EXPECT_EQ(path_of(Request{DeleteRequest{.path = "/x"}}), "/x");
}

TEST(PathOf, AMultiNamesItsFirstOpsPathAndAnEmptyOneNone) {
  MultiRequest m;
  m.ops.emplace_back(CheckRequest{.path = "/first"});
  m.ops.emplace_back(DeleteRequest{.path = "/second"});
  EXPECT_EQ(path_of(Request{m}), "/first");
  EXPECT_EQ(path_of(Request{MultiRequest{}}), "");
}

TEST(PathOf, GetEphemeralsNamesItsPrefixAndSetWatchesNone) {
  EXPECT_EQ(path_of(Request{GetEphemeralsRequest{.prefix = "/locks"}}), "/locks");
  EXPECT_EQ(path_of(Request{SetWatchesRequest{.data = {"/a"}}}), "");
}

}  // namespace
}  // namespace zksim
