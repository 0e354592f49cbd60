// One real ZooKeeper server per test binary: ZkServerEnvironment starts it
// before the first test and stops it after the last.
#pragma once

#include "zk_server.h"

#include <gtest/gtest.h>

namespace zksim::test {

// The binary's one server; hosts() is empty until it started.
ZkServer& zk_server();

class ZkServerEnvironment : public ::testing::Environment {
 public:
  void SetUp() override;
  void TearDown() override;
};

}  // namespace zksim::test
