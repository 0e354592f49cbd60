// Path validation: what the C client refuses before sending, and what it
// sends but the server refuses (a BadArguments that uses a zxid).
#include "harness.h"

namespace zksim {
namespace {

using namespace conf;

// Creates `rel` under the root, then a marker node, so the marker's czxid
// shows whether the first create used a zxid.
Task<> try_create(Env& env, Recorder& rec, std::string path, CreateMode mode, std::string tag) {
  Client& zk = env.a();
  rec.put("create " + tag, co_await zk.create(path, "", mode));
  rec.put("marker", co_await zk.create(env.path("marker-"), "", CreateMode::PersistentSequential));
}

CONFORMANCE_CASE(Paths, RelativePathIsRefusedByTheClient) {
  co_await try_create(env, rec, "a", CreateMode::Persistent, "a");
}

CONFORMANCE_CASE(Paths, EmptyPathIsRefusedByTheClient) {
  co_await try_create(env, rec, "", CreateMode::Persistent, "''");
}

CONFORMANCE_CASE(Paths, TrailingSlashIsRefused) {
  co_await try_create(env, rec, env.root() + "/", CreateMode::Persistent, "root/");
}

CONFORMANCE_CASE(Paths, DoubleSlashIsRefused) {
  co_await try_create(env, rec, env.root() + "//a", CreateMode::Persistent, "//a");
}

CONFORMANCE_CASE(Paths, DotComponentIsRefused) {
  co_await try_create(env, rec, env.path("."), CreateMode::Persistent, ".");
}

CONFORMANCE_CASE(Paths, DotDotComponentIsRefused) {
  co_await try_create(env, rec, env.path("../a"), CreateMode::Persistent, "../a");
}

CONFORMANCE_CASE(Paths, InnerDotComponentOfSequentialIsRefused) {
  co_await try_create(env, rec, env.path("./a"), CreateMode::PersistentSequential, "./a seq");
}

CONFORMANCE_CASE(Paths, ControlByteIsRefusedByTheClient) {
  co_await try_create(env, rec, env.path("a\x01"), CreateMode::Persistent, "\\x01");
}

CONFORMANCE_CASE(Paths, Byte1FIsRefusedByTheServer) {
  co_await try_create(env, rec, env.path("a\x1f"), CreateMode::Persistent, "\\x1f");
}

CONFORMANCE_CASE(Paths, DeleteCharacterIsRefusedByTheServer) {
  co_await try_create(env, rec, env.path("a\x7f"), CreateMode::Persistent, "\\x7f");
}

CONFORMANCE_CASE(Paths, C1ControlCharacterIsRefusedByTheServer) {
  co_await try_create(env, rec, env.path("a\xc2\x85"), CreateMode::Persistent, "U+0085");
}

CONFORMANCE_CASE(Paths, PrivateUseCharacterIsRefusedByTheServer) {
  co_await try_create(env, rec, env.path("a\xef\x80\x80"), CreateMode::Persistent, "U+F000");
}

CONFORMANCE_CASE(Paths, NoncharacterFFF0IsRefusedByTheServer) {
  co_await try_create(env, rec, env.path("a\xef\xbf\xb0"), CreateMode::Persistent, "U+FFF0");
}

CONFORMANCE_CASE(Paths, InvalidUtf8IsRefusedByTheServer) {
  co_await try_create(env, rec, env.path("a\xff"), CreateMode::Persistent, "\\xff");
}

CONFORMANCE_CASE(Paths, SupplementaryCharacterIsRefusedByTheServer) {
  co_await try_create(env, rec, env.path("a\xf0\x9f\x98\x80"), CreateMode::Persistent, "U+1F600");
}

CONFORMANCE_CASE(Paths, OrdinaryUnicodeIsAllowed) {
  co_await try_create(env, rec, env.path("\xc3\xa9t\xc3\xa9"), CreateMode::Persistent, "ete");
}

CONFORMANCE_CASE(Paths, DotPrefixSpaceAndZookeeperNamesAreAllowed) {
  co_await try_create(env, rec, env.path(".x"), CreateMode::Persistent, ".x");
  co_await try_create(env, rec, env.path(" space"), CreateMode::Persistent, "space");
  co_await try_create(env, rec, env.path("zookeeper"), CreateMode::Persistent, "zookeeper");
}

CONFORMANCE_CASE(Paths, ReadsOfMalformedPathsAreRefusedByTheClient) {
  Client& zk = env.a();
  rec.put("get root/", co_await zk.get_data(env.root() + "/"));
  rec.put("exists //", co_await zk.exists(env.root() + "//a"));
  rec.put("children rel", co_await zk.get_children("a"));
  rec.put("sync ''", co_await zk.sync(""));
  rec.put("rm .", co_await zk.remove(env.path(".")));
  rec.put("set ..", co_await zk.set_data(env.path(".."), ""));
}

CONFORMANCE_CASE(Paths, ReadsOfServerInvalidNamesAreNoNode) {
  Client& zk = env.a();
  rec.put("get \\x7f", co_await zk.get_data(env.path("a\x7f")));
  rec.put("exists \\xff", co_await zk.exists(env.path("a\xff")));
}

CONFORMANCE_CASE(Paths, MultiWithAClientInvalidPathIsRefusedWhole) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  ops.push_back(CreateRequest{env.path("a"), "", open_acl(), CreateMode::Persistent});
  ops.push_back(CreateRequest{env.path("b/"), "", open_acl(), CreateMode::Persistent});
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("a", co_await zk.exists(env.path("a")));
}

CONFORMANCE_CASE(Paths, MultiWithAServerInvalidPathFailsPerOp) {
  Client& zk = env.a();
  std::vector<MultiOp> ops;
  ops.push_back(CreateRequest{env.path("a"), "", open_acl(), CreateMode::Persistent});
  ops.push_back(CreateRequest{env.path("b\x7f"), "", open_acl(), CreateMode::Persistent});
  rec.put("multi", co_await zk.multi(std::move(ops)));
  rec.put("a", co_await zk.exists(env.path("a")));
}

}  // namespace
}  // namespace zksim
