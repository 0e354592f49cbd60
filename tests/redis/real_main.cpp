// main() of redis_real_test: one real redis-server for the whole binary.
#include "real_fixture.h"

#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ::testing::AddGlobalTestEnvironment(new zksim::redis::RedisServerEnvironment);
  return RUN_ALL_TESTS();
}
