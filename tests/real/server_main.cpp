// main() of the test binaries that need a real server: one server per binary.
#include "zk_server_env.h"

#include <zookeeper/zookeeper.h>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // Level 0 silences the C client: expiry and connection loss are expected here.
  zoo_set_debug_level(static_cast<ZooLogLevel>(0));
  ::testing::AddGlobalTestEnvironment(new zksim::test::ZkServerEnvironment);
  return RUN_ALL_TESTS();
}
