// The two backends of a case and the comparison.
#include "harness.h"

#include "tcp_gate.h"
#include "zk_server_env.h"
#include "zksim/real_client.h"
#include "zksim/world.h"

#include <fmt/format.h>

#include <cstdlib>
#include <memory>

namespace zksim::conf {
namespace {

// Waits until `c` is connected (or gone), polling on the backend's clock.
Task<bool> connected(Client& c, TimeMs limit = 10'000) {
  TimeMs end = c.now() + limit;
  while (c.state() == SessionState::Connecting) {
    if (c.now() >= end) break;
    co_await c.sleep(1);
  }
  co_return c.state() == SessionState::Connected;
}

Task<bool> until_expired(Client& c, TimeMs limit = 10'000) {
  TimeMs end = c.now() + limit;
  while (c.state() != SessionState::Expired) {
    if (c.now() >= end) co_return false;
    co_await c.sleep(5);
  }
  co_return true;
}

class SimEnv final : public Env {
 public:
  SimEnv(World& w, Recorder& rec, std::string root) : world_(w), rec_(rec) {
    root_ = std::move(root);
    a_ = &w.open("s1", 4000);
  }
  Task<Client*> open(int timeout_ms) override {
    std::string name = fmt::format("s{}", ++opened_);
    Client& c = world_.open(name, timeout_ms);
    co_await connected(c);
    rec_.name_session(c.session_id(), name);
    co_return &c;
  }
  Task<bool> expire(Client& c) override {
    world_.inject(FaultKind::ExpireSession, world_.id(c));
    bool done = co_await until_expired(c);
    co_return done;
  }
  const char* name() const override { return "sim"; }

 private:
  World& world_;
  Recorder& rec_;
  int opened_ = 1;
};

// Every client connects through its own TcpGate, so expire() can keep it
// away from the server while another handle closes its session.
class RealEnv final : public Env {
 public:
  RealEnv(RealLoop& loop, Recorder& rec, std::string root) : loop_(loop), rec_(rec) {
    root_ = std::move(root);
    a_ = add(4000);
  }
  ~RealEnv() override {
    clients_.clear();  // closes the sessions (one zxid each) before the next case
    gates_.clear();
  }
  Task<Client*> open(int timeout_ms) override {
    std::string name = fmt::format("s{}", ++opened_);
    Client* c = add(timeout_ms);
    co_await connected(*c);
    rec_.name_session(c->session_id(), name);
    co_return c;
  }
  Task<bool> expire(Client& c) override {
    std::size_t i = 0;
    while (clients_[i].get() != &c) ++i;
    gates_[i]->hold(true);
    auto r = co_await clients_[i]->expire_from_outside(test::zk_server().hosts());
    gates_[i]->hold(false);
    bool done = r.ok() && co_await until_expired(c);
    co_return done;
  }
  const char* name() const override { return "real"; }

 private:
  Client* add(int timeout_ms) {
    gates_.push_back(std::make_unique<test::TcpGate>(test::zk_server().port()));
    clients_.push_back(RealClient::open(loop_, gates_.back()->hosts(), timeout_ms));
    return clients_.back().get();
  }
  RealLoop& loop_;
  Recorder& rec_;
  std::vector<std::unique_ptr<test::TcpGate>> gates_;
  std::vector<std::unique_ptr<RealClient>> clients_;
  int opened_ = 1;
};

// Connects a(), creates the root, sets the zxid marker, runs the case.
Task<> body(Env& env, Recorder& rec, CaseFn fn) {
  Client& a = env.a();
  bool up = co_await connected(a);
  if (!up) {
    rec.line("could not connect");
    co_return;
  }
  rec.name_session(a.session_id(), "s1");
  std::string root = env.root();
  auto made = co_await a.create(root, "", CreateMode::Persistent);
  if (!made) {
    rec.line(fmt::format("could not create {}: {}", root, made.error()));
    co_return;
  }
  rec.set_marker(made->stat.czxid);
  co_await fn(env, rec);
}

std::vector<std::string> run_sim(CaseFn fn, const std::string& root) {
  SeededDecisions decisions(1);
  WorldConfig config;
  config.delay_choices = 1;
  config.server.tick_ms = 200;
  config.container_check_ms = 1000;
  World world(config, decisions);
  Recorder rec;
  SimEnv env(world, rec, root);
  world.spawn(env.a(), body(env, rec, fn));
  if (!world.run_until_done(600'000)) rec.line("sim: case did not finish");
  return rec.lines();
}

std::vector<std::string> run_real(CaseFn fn, const std::string& root) {
  RealLoop loop;
  Recorder rec;
  {
    RealEnv env(loop, rec, root);
    loop.spawn(body(env, rec, fn));
    if (!loop.run_until_done(30'000)) rec.line("real: case did not finish in 30 s");
  }
  return rec.lines();
}

}  // namespace

void check_case(CaseFn fn) {
  static int next_root = 1;
  const std::string root = fmt::format("/c{}", next_root++);
  std::vector<std::string> sim = run_sim(fn, root);
  std::vector<std::string> real = run_real(fn, root);
  std::string diff;
  for (std::size_t i = 0; i < std::max(sim.size(), real.size()); ++i) {
    std::string s = i < sim.size() ? sim[i] : "(none)";
    std::string r = i < real.size() ? real[i] : "(none)";
    diff += fmt::format("{} {}\n", s == r ? ' ' : '!', s);
    if (s != r) diff += fmt::format("  real: {}\n", r);
  }
  if (std::getenv("ZKSIM_CONFORMANCE_PRINT")) fmt::print("{}", diff);
  EXPECT_EQ(sim, real) << "root " << root << "; lines marked ! differ (sim, then real):\n"
                       << diff;
  EXPECT_FALSE(sim.empty());
}

}  // namespace zksim::conf
