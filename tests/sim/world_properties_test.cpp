// Guarantees the world keeps, checked on the traces of 10,000 random
// schedules with every fault class: per-session FIFO, a watch event before
// any later response, no going back in time within a session (across
// reconnects too), and time that never goes back.
#include "random_workload.h"
#include "smoke.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

namespace zksim::test {
namespace {

// Errors the client library makes up itself: they carry no server zxid.
bool local_error(std::int32_t code) {
  auto e = static_cast<Error>(code);
  return e == Error::ConnectionLoss || e == Error::SessionExpired || e == Error::InvalidState ||
         e == Error::BadArguments || e == Error::Closing;
}

struct SessionView {
  std::uint32_t last_xid = 0;
  std::int64_t max_zxid = 0;  // highest server zxid in a response so far
};

// An empty string when the trace keeps every guarantee, else the first breach.
std::string check(const Trace& trace) {
  std::map<SessionId, SessionView> sessions;
  TimeMs last_time = 0;
  for (const TraceEvent& e : trace.events()) {
    if (e.time < last_time) return fmt::format("time went back: {}", render_event(e));
    last_time = e.time;
    if (e.session == SessionId{}) continue;
    SessionView& s = sessions[e.session];
    if (e.kind == TraceKind::Response && e.xid != 0) {
      if (e.xid <= s.last_xid) return fmt::format("responses out of order: {}", render_event(e));
      s.last_xid = e.xid;
      if (!local_error(e.code)) {
        if (e.zxid < s.max_zxid) return fmt::format("went back in time: {}", render_event(e));
        s.max_zxid = e.zxid;
      }
    }
    if (e.kind == TraceKind::Watch && e.zxid <= s.max_zxid) {
      return fmt::format("watch event after a response that reflects it: {}", render_event(e));
    }
  }
  return {};
}

TEST(WorldProperties, SeededSchedulesKeepEveryGuarantee) {
  constexpr std::uint64_t kSchedules = test::full_or_smoke<std::uint64_t>(10'000, 1'000);
  std::uint64_t faults = 0, watches = 0;
  for (std::uint64_t seed = 1; seed <= kSchedules; ++seed) {
    SeededDecisions d(seed * 7919);
    const Trace* trace = nullptr;
    random_run(d, 3, 12, &trace);
    std::string breach = check(*trace);
    ASSERT_TRUE(breach.empty()) << "seed " << seed << ": " << breach;
    for (const TraceEvent& e : trace->events()) {
      faults += e.kind == TraceKind::Fault;
      watches += e.kind == TraceKind::Watch;
    }
  }
  // The schedules really contain what the guarantees are about.
  EXPECT_GT(faults, kSchedules / 10);
  EXPECT_GT(watches, kSchedules);
}

// The checker itself must be able to fail.
TEST(WorldProperties, CheckerCatchesBrokenTraces) {
  SessionId s{1};
  Trace back;
  back.add(TraceEvent{.time = 5});
  back.add(TraceEvent{.time = 4});
  EXPECT_NE(check(back), "");
  Trace reordered;
  reordered.add(TraceEvent{.time = 1, .kind = TraceKind::Response, .session = s, .zxid = 3, .xid = 2});
  reordered.add(TraceEvent{.time = 2, .kind = TraceKind::Response, .session = s, .zxid = 3, .xid = 1});
  EXPECT_NE(check(reordered), "");
  Trace stale;
  stale.add(TraceEvent{.time = 1, .kind = TraceKind::Response, .session = s, .zxid = 9, .xid = 1});
  stale.add(TraceEvent{.time = 2, .kind = TraceKind::Response, .session = s, .zxid = 8, .xid = 2});
  EXPECT_NE(check(stale), "");
  Trace late_watch;
  late_watch.add(TraceEvent{.time = 1, .kind = TraceKind::Response, .session = s, .zxid = 9, .xid = 1});
  late_watch.add(TraceEvent{.time = 2, .kind = TraceKind::Watch, .session = s, .zxid = 9});
  EXPECT_NE(check(late_watch), "");
  Trace fine;
  fine.add(TraceEvent{.time = 1, .kind = TraceKind::Watch, .session = s, .zxid = 9});
  fine.add(TraceEvent{.time = 2, .kind = TraceKind::Response, .session = s, .zxid = 9, .xid = 1});
  EXPECT_EQ(check(fine), "");
}

}  // namespace
}  // namespace zksim::test
