// The queue family: the FIFO queue (delivery at most once) and the locking
// queue (at least once). Clients 0..producers-1 put `rounds` items each,
// with unique values "c<id>-<i>"; the others take until every item put ok
// was delivered, or until a take begun after the producers finished found
// nothing for its whole timeout. A locking-queue consumer holds its item
// for hold_ms, then acks it; if it dies first, the item is delivered again.
// A varied workload draws each take's timeout and may give a client a
// second handle on its session, producing or consuming like the client.
//
// Checked: check_queue (at least once for the locking queue) against the
// items still on the server, liveness, prompt takes in runs without faults
// (progress), one holder per item of the locking queue (claim-exclusion),
// and leaks at quiescence, the clients
// still open: nothing in the queue's directory but queued items (and the
// locking queue's two directories, with no claim left), and no watch but
// the child watches of takes that timed out (a one-shot watch stays until
// the next change; the client interface has no removeWatches).
#include "workloads.h"

#include <fmt/format.h>

#include <set>

namespace zksim::scenarios::detail {

namespace {

struct QueueState final : FamilyState {
  std::vector<const Client*> producers;
  std::vector<bool> finished;       // per producer
  std::set<std::string> put_ok;     // values whose put ended ok
  std::set<std::string> delivered;  // taken (queue) or acked (locking queue)

  // Every producer finished, or its process crashed.
  bool producers_done() const {
    for (std::size_t i = 0; i < producers.size(); ++i) {
      if (!finished[i] && producers[i]->state() != SessionState::Closed) return false;
    }
    return true;
  }
  bool all_delivered() const {
    return std::includes(delivered.begin(), delivered.end(), put_ok.begin(), put_ok.end());
  }
};

bool at_least_once(const Recipe& recipe) { return recipe.family == RecipeFamily::LockingQueue; }

QueueDelivery delivery_of(const Recipe& recipe) {
  if (at_least_once(recipe)) return QueueDelivery::AtLeastOnce;
  return recipe.traits.at_most_once ? QueueDelivery::AtMostOnce : QueueDelivery::ExactlyOnce;
}

TimeMs wait_ms(const Workload& w) {
  return w.timeout_ms >= 0 ? w.timeout_ms : 2 * static_cast<TimeMs>(w.session_timeout_ms);
}

// A put that failed after its session ended may have created its item
// before: like a lost reply, its outcome is unknown.
void record_put_failure(History& h, std::size_t op, TimeMs now, Error e) {
  if (e == Error::SessionExpired || e == Error::InvalidState || e == Error::Closing) {
    h.info(op, now, e);
  } else {
    record_failure(h, op, now, e);
  }
}

Task<> producer(Client& zk, int id, std::size_t index, Workload w, std::unique_ptr<QueueHandle> queue, Shared& s,
                QueueState& q) {
  for (int i = 0; i < w.rounds && !session_over(zk); ++i) {
    std::string value = fmt::format("c{}-{}", id, i);
    auto op = s.history.invoke(id, "put", zk.now(), value);
    auto put = co_await queue->put(value);
    if (put) {
      s.history.ok(op, zk.now(), value);
      q.put_ok.insert(value);
      ++s.completed_rounds;
    } else {
      record_put_failure(s.history, op, zk.now(), put.error());
    }
    co_await zk.sleep(w.think_ms);
  }
  q.finished[index] = true;
}

// Delivers `item` for good: the plain queue's take already did; the
// locking queue's consumer works on it, then acks.
// A varied consumer of the locking queue may give the item back instead
// (release), drawn per item, and backs off for a take's wait before it
// takes again, as a consumer that could not process an item would: the
// item goes to another consumer meanwhile.
Task<bool> finish(QueueHandle& queue, bool locking, Client& zk, int id, recipes::Item item, Workload w, Shared& s,
                  DecisionSource& decisions) {
  if (!locking) co_return true;
  co_await zk.sleep(w.hold_ms);
  const bool give_back = w.varied && decisions.pick(4) == 1;
  auto op = s.history.invoke(id, give_back ? "release" : "ack", zk.now(), item.data);
  if (give_back) {
    auto released = co_await queue.give_back(item);
    if (released) {
      s.history.ok(op, zk.now(), item.data);
    } else {
      record_failure(s.history, op, zk.now(), released.error());
    }
    co_await zk.sleep(wait_ms(w));
    co_return false;
  }
  auto acked = co_await queue.ack(item);
  if (acked) {
    s.history.ok(op, zk.now(), item.data);
    co_return true;
  }
  record_failure(s.history, op, zk.now(), acked.error());
  co_return false;
}

Task<> consumer(Client& zk, int id, Workload w, std::unique_ptr<QueueHandle> queue, bool locking, Shared& s,
                QueueState& q, DecisionSource& decisions) {
  while (!session_over(zk)) {
    const bool producers_done = q.producers_done();
    if (producers_done && q.all_delivered()) break;
    // A varied workload draws each take's timeout: 0 polls, and a short one
    // gives up mid-wait.
    const TimeMs timeout_ms = w.varied ? drawn_timeout(decisions, wait_ms(w)) : wait_ms(w);
    auto op = s.history.invoke(id, "take", zk.now());
    auto got = co_await queue->take(timeout_ms);
    if (!got) {
      if (got.error() == Error::ConnectionLoss) {
        s.history.info(op, zk.now(), got.error(), queue->in_doubt().value_or(""));
      } else {
        record_failure(s.history, op, zk.now(), got.error());
      }
      // Found nothing for a whole timeout begun after the producers were
      // done: whatever was put ok and not delivered is gone or stuck. (A
      // shorter drawn timeout says nothing: a claim of a dead consumer may
      // still be on its way back.)
      if (got.error() == Error::OperationTimeout && producers_done && timeout_ms >= wait_ms(w)) break;
      co_await zk.sleep(w.think_ms);
      continue;
    }
    s.history.ok(op, zk.now(), got->data);
    std::string value = got->data;
    bool done = co_await finish(*queue, locking, zk, id, std::move(*got), w, s, decisions);
    if (done) {
      q.delivered.insert(value);
      ++s.completed_rounds;
    }
    co_await zk.sleep(w.think_ms);
  }
}

std::string spawn(World& world, const Workload& w, const Recipe& recipe, Shared& s) {
  if (w.producers < 0 || w.producers > w.clients) {
    return fmt::format("{} producers, but there are {} clients", w.producers, w.clients);
  }
  auto state = std::make_unique<QueueState>();
  QueueState& q = *state;
  s.family = std::move(state);
  const bool locking = at_least_once(recipe);
  auto start = [&](Client& zk, bool produces) -> std::string {
    const int id = world.id(zk);
    auto queue = recipe.make_queue(HandleContext{zk, kDir, fmt::format("c{}", id), {}, w.leases, w.clients});
    if (!queue) return fmt::format("recipe '{}' made no handle", recipe.name);
    if (produces) {
      q.producers.push_back(&zk);
      q.finished.push_back(false);
      auto index = q.producers.size() - 1;
      world.spawn(zk, producer(zk, id, index, w, std::move(queue), s, q));
    } else {
      world.spawn(zk, consumer(zk, id, w, std::move(queue), locking, s, q, world.decisions()));
    }
    return {};
  };
  std::vector<Client*> clients;
  for (int i = 0; i < w.clients; ++i) {
    clients.push_back(&open_client(world, w, i));
    if (std::string problem = start(*clients.back(), i < w.producers); !problem.empty()) return problem;
  }
  // A varied workload: a client may also produce, or consume, through a
  // second handle on its session (its values are named by that handle).
  if (w.varied) {
    for (int i = 0; i < w.clients; ++i) {
      if (Client* view = drawn_share(world, *clients[static_cast<std::size_t>(i)], s)) {
        if (std::string problem = start(*view, i < w.producers); !problem.empty()) return problem;
      }
    }
  }
  return {};
}

std::vector<std::string> properties(const Recipe& recipe) {
  if (at_least_once(recipe)) {
    return {name(Property::QueueNoLoss), name(Property::QueueNoPhantoms), name(Property::QueueFifo), name(Property::ClaimExclusion), name(Property::Liveness), name(Property::Progress), name(Property::NoLeaks)};
  }
  return {name(Property::QueueNoLoss), name(Property::QueueNoDuplicates), name(Property::QueueNoPhantoms), name(Property::QueueFifo), name(Property::Liveness), name(Property::Progress), name(Property::NoLeaks)};
}

// The values of the items under `dir` (nodes carrying `marker`); anything
// else there goes to `others`.
std::vector<std::string> items_in(const Server& server, const std::string& dir, const std::string& marker,
                                  std::vector<std::string>& others) {
  std::vector<std::string> values;
  for (const std::string& name : server.children(dir)) {
    std::string path = dir + "/" + name;
    auto node = server.node(path);
    if (node && name.find(marker) != std::string::npos) {
      values.push_back(node->data);
    } else {
      others.push_back(path);
    }
  }
  return values;
}

void check(World& world, const Workload& w, const Recipe& recipe, Shared& s, RunResult& out) {
  const Server& server = world.server();
  std::vector<std::string> strays, left, dirs{kDir};
  const std::string& marker = recipe.traits.item_marker;
  if (at_least_once(recipe)) {
    const std::string items = kDir + "/" + recipe.traits.items_dir, claims = kDir + "/" + recipe.traits.claims_dir;
    dirs = {items, claims};
    left = items_in(server, items, marker, strays);
    for (const std::string& claim : server.children(claims)) strays.push_back(claims + "/" + claim);
    for (const std::string& name : server.children(kDir)) {
      std::string path = kDir + "/" + name;
      if (path != items && path != claims) strays.push_back(path);
    }
  } else {
    left = items_in(server, kDir, marker, strays);
  }
  auto take_timed_out = [&](const std::string& watch) {
    return std::any_of(dirs.begin(), dirs.end(), [&](const std::string& d) { return watch == "child " + d; });
  };
  std::vector<Violation>& v = out.violations;
  // check_queue reads the expiries a take may have outlived; the run's
  // history (and its pictures) stays as the clients recorded it.
  History with_expiries = s.history;
  note_expiries(world.trace(), s.sharers, with_expiries);
  append(v, check_queue(with_expiries, left, delivery_of(recipe), session_spans(world.trace(), s.sharers),
                        &out.lost_in_transit));
  append(v, check_no_pending(s.history, {"put", "take", "ack", "release"}));
  // A session timeout: hundreds of round trips in a run without faults.
  if (at_least_once(recipe)) append(v, check_exclusive_claims(s.history, expiry_times(world.trace(), s.sharers, /*declared_too=*/false)));
  if (no_fault_struck(world.trace())) append(v, check_prompt_takes(s.history, w.session_timeout_ms));
  append(v, check_no_leaks(strays, watches_left(server, take_timed_out)));
}

}  // namespace

Family queue_family() { return Family{{RecipeFamily::Queue, RecipeFamily::LockingQueue}, spawn, properties, check}; }

}  // namespace zksim::scenarios::detail
