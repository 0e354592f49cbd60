#include "zk_server_env.h"

namespace zksim::test {

ZkServer& zk_server() {
  static ZkServer server;
  return server;
}

void ZkServerEnvironment::SetUp() {
  ASSERT_TRUE(zk_server().start()) << zk_server().error();
}

void ZkServerEnvironment::TearDown() { zk_server().stop(); }

}  // namespace zksim::test
