// The three backends of a case and the comparison: the simulator, the C
// client against Debian's server, and the C client against `zksim serve`
// (its loop in a thread of this binary, configured as the real server is).
#include "harness.h"

#include "serve_thread.h"
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

// A server the C client talks to: Debian's, or `zksim serve`.
struct Upstream {
  int port = 0;
  const char* name = "real";
  std::string hosts() const { return "127.0.0.1:" + std::to_string(port); }
};

// Every client connects through its own TcpGate, so expire() can keep it
// away from the server while another handle closes its session.
class RealEnv final : public Env {
 public:
  RealEnv(RealLoop& loop, Recorder& rec, std::string root, Upstream upstream)
      : loop_(loop), rec_(rec), upstream_(upstream) {
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
    auto r = co_await clients_[i]->expire_from_outside(upstream_.hosts());
    gates_[i]->hold(false);
    bool done = r.ok() && co_await until_expired(c);
    co_return done;
  }
  const char* name() const override { return upstream_.name; }

 private:
  Client* add(int timeout_ms) {
    gates_.push_back(std::make_unique<test::TcpGate>(upstream_.port));
    clients_.push_back(RealClient::open(loop_, gates_.back()->hosts(), timeout_ms));
    return clients_.back().get();
  }
  RealLoop& loop_;
  Recorder& rec_;
  Upstream upstream_;
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

std::vector<std::string> run_real(CaseFn fn, const std::string& root, Upstream upstream) {
  RealLoop loop;
  Recorder rec;
  {
    RealEnv env(loop, rec, root, upstream);
    loop.spawn(body(env, rec, fn));
    if (!loop.run_until_done(30'000)) rec.line(fmt::format("{}: case did not finish in 30 s", upstream.name));
  }
  return rec.lines();
}

// `zksim serve` for the whole binary, as the real server is configured
// (tickTime 200, containers checked every second, TTL nodes on).
const wire::test::ServeThread& zksim_serve() {
  static const wire::test::ServeThread serve;
  return serve;
}

// The lines of `ours` against the real server's, those that differ marked.
std::string diff(const std::vector<std::string>& ours, const std::vector<std::string>& real, const char* name) {
  std::string out;
  for (std::size_t i = 0; i < std::max(ours.size(), real.size()); ++i) {
    std::string o = i < ours.size() ? ours[i] : "(none)";
    std::string r = i < real.size() ? real[i] : "(none)";
    out += fmt::format("{} {}\n", o == r ? ' ' : '!', o);
    if (o != r) out += fmt::format("  real: {}\n", r);
  }
  if (std::getenv("ZKSIM_CONFORMANCE_PRINT")) fmt::print("--- {} against real\n{}", name, out);
  return out;
}

}  // namespace

void check_case(CaseFn fn) {
  static int next_root = 1;
  const std::string root = fmt::format("/c{}", next_root++);
  std::vector<std::string> sim = run_sim(fn, root);
  std::vector<std::string> real = run_real(fn, root, Upstream{test::zk_server().port(), "real"});
  std::vector<std::string> served = run_real(fn, root, Upstream{zksim_serve().port(), "serve"});
  const std::string sim_diff = diff(sim, real, "sim");
  const std::string served_diff = diff(served, real, "zksim serve");
  EXPECT_EQ(sim, real) << "root " << root << "; lines marked ! differ (sim, then real):\n" << sim_diff;
  EXPECT_EQ(served, real) << "root " << root << "; lines marked ! differ (the C client on zksim serve, then real):\n"
                          << served_diff;
  EXPECT_FALSE(sim.empty());
}

}  // namespace zksim::conf
