// Checks a history written by a real-client test (kazoo, Curator) against
// zksim serve with the project's checkers (zksim/scenarios/checkers.h).
//
//   wire_check_history HISTORY.json [--expect PROPERTY[,PROPERTY...]]
//
// The file: {"recipe": NAME, "members": N, "left": [values still queued],
// "counter": final value, "events": [...]}, each event one of
//   {"type":"invoke","op":K,"client":C,"f":F,"time":T,"value":V}
//   {"type":"ok","op":K,"time":T,"value":V,"fence":N}
//   {"type":"fail"|"info","op":K,"time":T,"error":E,"value":V}
//   {"type":"note","client":C,"time":T,"what":W}
// in the order recorded; they are replayed in time order (ties in that
// order, but an expiry first). A note "expired" is the server expiring the client's session
// (asked through the control interface): from it until the client is told
// ("suspended" or "lost"), the client cannot know better, and belief
// checkers leave that stretch out (checkers.h, Window).
//
// Prints every violation; exit 0 when there is none (or, with --expect, when
// the properties violated are exactly those listed), 1 otherwise, 2 on bad
// input.
#include "zksim/scenarios/checkers.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <set>

namespace {

using namespace zksim;
using namespace zksim::scenarios;

struct Input {
  std::string recipe;
  int members = 0;
  History history;
  std::vector<std::string> left;
  std::optional<int> counter;
  std::map<int, std::vector<TimeMs>> expired;  // client -> when its session was expired
  std::vector<Window> windows;                 // expired, not yet told
};

Input read(const nlohmann::json& j) {
  Input in;
  in.recipe = j.at("recipe").get<std::string>();
  in.members = j.value("members", 0);
  for (const auto& v : j.at("left")) in.left.push_back(v.get<std::string>());
  if (!j.at("counter").is_null()) in.counter = j.at("counter").get<int>();
  std::vector<nlohmann::json> events(j.at("events").begin(), j.at("events").end());
  // By time; at the same millisecond an expiry first: its note carries the
  // time the server was asked, and what it caused (the client told) may be
  // recorded in the same millisecond but before the note.
  const auto key = [](const nlohmann::json& e) {
    const bool expiry = e.at("type") == "note" && e.at("what") == "expired";
    return std::pair{e.at("time").get<TimeMs>(), expiry ? 0 : 1};
  };
  std::stable_sort(events.begin(), events.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
  std::map<int, std::size_t> op_of;     // the file's op -> History's
  std::map<int, std::size_t> told_by;   // client -> its open window
  for (const auto& e : events) {
    const std::string type = e.at("type").get<std::string>();
    const TimeMs t = e.at("time").get<TimeMs>();
    if (type == "invoke") {
      op_of[e.at("op").get<int>()] =
          in.history.invoke(e.at("client").get<int>(), e.at("f").get<std::string>(), t, e.value("value", ""));
    } else if (type == "ok") {
      in.history.ok(op_of.at(e.at("op").get<int>()), t, e.value("value", ""), e.value("fence", std::int64_t{0}));
    } else if (type == "fail") {
      in.history.fail(op_of.at(e.at("op").get<int>()), t, static_cast<Error>(e.at("error").get<int>()));
    } else if (type == "info") {
      in.history.info(op_of.at(e.at("op").get<int>()), t, static_cast<Error>(e.at("error").get<int>()),
                      e.value("value", ""));
    } else if (type == "note") {
      const int client = e.at("client").get<int>();
      const std::string what = e.at("what").get<std::string>();
      in.history.note(client, t, what);
      if (what == "expired") {
        in.expired[client].push_back(t);
        told_by[client] = in.windows.size();
        in.windows.push_back(Window{client, t, INT64_MAX});
      } else if ((what == "suspended" || what == "lost") && told_by.count(client)) {
        in.windows[told_by[client]].to = t + 1;
        told_by.erase(client);
      }
    } else {
      throw std::runtime_error("unknown event type " + type);
    }
  }
  return in;
}

// A shared counter incremented by 1 from 0: every increment that ended ok
// was applied exactly once, and one whose outcome is unknown (info, or
// pending) at most once. Below that: "counter-no-loss"; above (an
// increment applied twice, as a retry after a lost reply does):
// "counter-no-duplicates". Failed increments were not applied.
std::vector<Violation> check_counter(const History& h, int final_value) {
  int ok = 0, unknown = 0;
  for (const Op& o : h.ops()) {
    if (o.f != "increment") continue;
    if (o.outcome == Outcome::Ok) ++ok;
    if (o.outcome == Outcome::Info || o.outcome == Outcome::Pending) ++unknown;
  }
  if (final_value < ok) {
    return {Violation{"counter-no-loss",
                      fmt::format("{} increments ended ok but the counter reads {}", ok, final_value), {}, 0}};
  }
  if (final_value > ok + unknown) {
    return {Violation{"counter-no-duplicates",
                      fmt::format("{} increments ended ok and {} unknown, but the counter reads {}", ok, unknown,
                                  final_value),
                      {}, 0}};
  }
  return {};
}

std::vector<Violation> check(const Input& in) {
  std::vector<Violation> v;
  auto add = [&](std::vector<Violation> more) { v.insert(v.end(), more.begin(), more.end()); };
  const History& h = in.history;
  if (in.recipe == "lock" || in.recipe == "mutex") {
    add(check_at_most(outside(beliefs(h, "acquire", "release"), in.windows), 1, "mutual-exclusion"));
    add(check_no_pending(h, {"acquire", "release"}));
  } else if (in.recipe == "election" || in.recipe == "leader-latch") {
    add(check_at_most(outside(beliefs(h, "campaign", "resign"), in.windows), 1, "one-leader"));
    add(check_no_pending(h, {"campaign", "resign"}));
  } else if (in.recipe == "queue" || in.recipe == "locking-queue") {
    const bool at_least_once = in.recipe == "locking-queue";
    // kazoo's Queue and Curator's DistributedQueue remove an item before
    // their caller has it: at most once.
    add(check_queue(h, in.left, at_least_once ? QueueDelivery::AtLeastOnce : QueueDelivery::AtMostOnce));
    if (at_least_once) add(check_exclusive_claims(h, in.expired));
    add(check_no_pending(h, {"put", "take", "ack", "release"}));
  } else if (in.recipe == "barrier") {
    add(check_barrier(h));
    add(check_no_pending(h, {"raise", "lower", "wait"}));
  } else if (in.recipe == "double-barrier") {
    add(check_double_barrier(h, in.members));
    add(check_no_pending(h, {"enter", "leave"}));
  } else if (in.recipe == "counter") {
    if (!in.counter) throw std::runtime_error("a counter's history needs its final \"counter\"");
    add(check_counter(h, *in.counter));
    add(check_no_pending(h, {"increment"}));
  } else {
    throw std::runtime_error("unknown recipe " + in.recipe);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2 && !(argc == 4 && std::string(argv[2]) == "--expect")) {
    fmt::print(stderr, "usage: {} HISTORY.json [--expect PROPERTY[,PROPERTY...]]\n", argv[0]);
    return 2;
  }
  std::vector<Violation> found;
  std::size_t ops = 0;
  try {
    std::ifstream file(argv[1]);
    if (!file) throw std::runtime_error(std::string("cannot read ") + argv[1]);
    const Input in = read(nlohmann::json::parse(file));
    ops = in.history.ops().size();
    found = check(in);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: {}\n", argv[1], e.what());
    return 2;
  }
  for (const Violation& v : found) {
    fmt::print("violation {} at t={} (clients {}): {}\n", v.property, v.time, fmt::join(v.clients, ","), v.message);
  }
  fmt::print("{} ops, {} violations\n", ops, found.size());
  if (argc == 4) {
    const std::string expect = argv[3];
    std::set<std::string> expected, properties;
    for (std::size_t from = 0; from <= expect.size();) {
      const std::size_t comma = std::min(expect.find(',', from), expect.size());
      expected.insert(expect.substr(from, comma - from));
      from = comma + 1;
    }
    for (const Violation& v : found) properties.insert(v.property);
    return properties == expected ? 0 : 1;
  }
  return found.empty() ? 0 : 1;
}
