#include "real_fixture.h"

#include <hiredis/hiredis.h>

#include <chrono>
#include <thread>

namespace zksim::redis {

test::RedisServer& redis_server() {
  static test::RedisServer server;
  return server;
}

void RedisServerEnvironment::SetUp() {
  ASSERT_TRUE(redis_server().start()) << redis_server().error();
  Connection c(redis_server().port());
  const Reply loaded = c.command({"FUNCTION", "LOAD", "REPLACE", lock_library()});
  ASSERT_EQ(loaded, Reply::bulk("zksim_locks"));
}

void RedisServerEnvironment::TearDown() { redis_server().stop(); }

namespace {

Reply from_hiredis(const redisReply* r) {
  switch (r->type) {
    case REDIS_REPLY_STRING: return Reply::bulk(std::string(r->str, r->len));
    case REDIS_REPLY_STATUS: return Reply::status(std::string(r->str, r->len));
    case REDIS_REPLY_ERROR: return Reply::error(std::string(r->str, r->len));
    case REDIS_REPLY_INTEGER: return Reply::of(r->integer);
    case REDIS_REPLY_NIL: return Reply::nil();
    case REDIS_REPLY_ARRAY: {
      std::vector<Reply> items;
      for (std::size_t i = 0; i < r->elements; ++i) items.push_back(from_hiredis(r->element[i]));
      return Reply::array(std::move(items));
    }
  }
  return Reply::error("hiredis: unknown reply type " + std::to_string(r->type));
}

Reply take(redisContext* c, void* raw) {
  if (!raw) return Reply::error(std::string("hiredis: ") + (c ? c->errstr : "no connection"));
  auto* r = static_cast<redisReply*>(raw);
  Reply out = from_hiredis(r);
  freeReplyObject(r);
  return out;
}

}  // namespace

Connection::Connection(int port) {
  const timeval timeout{2, 0};
  context_ = redisConnectWithTimeout("127.0.0.1", port, timeout);
  if (context_ && !context_->err) redisSetTimeout(context_, timeout);
}

Connection::~Connection() {
  if (context_) redisFree(context_);
}

Reply Connection::command(const Command& argv) {
  if (!context_ || context_->err) return take(context_, nullptr);
  std::vector<const char*> data;
  std::vector<std::size_t> lengths;
  for (const std::string& a : argv) {
    data.push_back(a.data());
    lengths.push_back(a.size());
  }
  return take(context_, redisCommandArgv(context_, static_cast<int>(argv.size()), data.data(), lengths.data()));
}

Reply Connection::read() {
  if (!context_ || context_->err) return take(context_, nullptr);
  void* raw = nullptr;
  if (redisGetReply(context_, &raw) != REDIS_OK) return take(context_, nullptr);
  return take(context_, raw);
}

TimeMs wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

std::string show(const Command& c) {
  std::string out;
  for (const std::string& a : c) out += (out.empty() ? "" : " ") + fmt::format("{:?}", a);
  return out;
}

RedisConformance::RedisConformance() : connection_(connect()) {
  scripts::register_lock_scripts(model);
  EXPECT_EQ(real({"FLUSHALL"}), Reply::ok());
}

std::unique_ptr<Connection> RedisConformance::connect() {
  return std::make_unique<Connection>(redis_server().port());
}

Reply RedisConformance::both(const Command& c) {
  const Reply expected = real(c);
  const Reply got = sim(c);
  EXPECT_EQ(got, expected) << show(c);
  return got;
}

void RedisConformance::both_pttl(const std::string& key, std::int64_t tolerance_ms) {
  const Reply r = real({"PTTL", key});
  const Reply m = sim({"PTTL", key});
  ASSERT_EQ(r.type, Reply::Type::Integer) << to_string(r);
  ASSERT_EQ(m.type, Reply::Type::Integer) << to_string(m);
  if (r.integer < 0 || m.integer < 0) {
    EXPECT_EQ(m.integer, r.integer) << "PTTL " << key;
  } else {
    EXPECT_NEAR(static_cast<double>(m.integer), static_cast<double>(r.integer), static_cast<double>(tolerance_ms))
        << "PTTL " << key;
  }
}

}  // namespace zksim::redis
