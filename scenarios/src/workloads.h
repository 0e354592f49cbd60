// Private: the recipe families. A family spawns the clients of a workload
// for its recipes and, once the run has quiesced, checks the properties
// that apply to them; the runner holds a small table of families.
#pragma once

#include "zksim/scenarios/recipe.h"
#include "zksim/scenarios/workload.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace zksim::scenarios::detail {

inline const std::string kDir = "/zksim/recipe";

// What one family keeps for its checks besides the History.
struct FamilyState {
  virtual ~FamilyState() = default;
};

// What a workload leaves for the checks.
struct Shared {
  // The leader, the ground truth read at each grant (World::server(): a
  // leader crash makes another server the leader).
  World* world = nullptr;
  std::vector<ServerGrant> grants;
  History history;
  FencedCounter counter;
  int completed_rounds = 0;
  // Client -> the other handles on its session (World::share), which the
  // trace names by that client: its faults and session news are theirs.
  std::map<int, std::vector<int>> sharers;
  std::unique_ptr<FamilyState> family;
};

struct Family {
  std::vector<RecipeFamily> serves;
  // Spawns the workload's clients in `world`; "" on success, else why the
  // workload cannot run.
  std::string (*spawn)(World& world, const Workload& w, const Recipe& recipe, Shared& shared);
  // The properties a run of `recipe` checks, in property_names() order.
  std::vector<std::string> (*properties)(const Recipe& recipe);
  // After quiescence: appends a violation for every property broken, and
  // fills what else the family measures (e.g. wake-ups per release).
  void (*check)(World& world, const Workload& w, const Recipe& recipe, Shared& shared, RunResult& out);
};

Family lock_family();
Family queue_family();
Family barrier_family();
Family custom_family();

// Helpers the families share.
// Opens client `i` of `w`: named "c<i>", with the workload's session
// timeout and the client's flavour.
Client& open_client(World& world, const Workload& w, int i);
bool session_over(const Client& zk);
// A call that failed: ConnectionLoss leaves its outcome unknown (info);
// any other error means it did not happen (fail).
void record_failure(History& h, std::size_t op, TimeMs now, Error e);
void append(std::vector<Violation>& to, std::vector<Violation> from);
// Notes "expired" in `h` at each server-side expiry of a client's session,
// for the client and the handles sharing its session (`sharers`).
void note_expiries(const Trace& trace, const std::map<int, std::vector<int>>& sharers, History& h);
// When each client's session expired on the server (`declared_too`: or
// its library declared it, state Expired), for the client and the handles
// sharing its session.
// Each client's sessions (checkers.h), for the client and the handles
// sharing its session.
SessionSpans session_spans(const Trace& trace, const std::map<int, std::vector<int>>& sharers);
std::map<int, std::vector<TimeMs>> expiry_times(const Trace& trace, const std::map<int, std::vector<int>>& sharers,
                                                bool declared_too);
// A varied workload's draw of one acquire's timeout (Workload::varied):
// decision 0 keeps `timeout_ms`, the others pick from kVariedTimeoutsMs.
TimeMs drawn_timeout(DecisionSource& d, TimeMs timeout_ms);
// Opens, if a varied workload's decision says so, a second handle on
// client `zk`'s session, named after it ("c<i>-2"), noted in s.sharers;
// nullptr otherwise.
Client* drawn_share(World& world, Client& zk, Shared& s);
// Whether no fault (scripted or drawn, of any class) struck in the run:
// the runs "progress" judges.
bool no_fault_struck(const Trace& trace);
// The watch events (node and child changes, not session events) delivered
// to the clients, in delivery order: what count_wakeups reads.
std::vector<Delivery> deliveries_of(const Trace& trace);
// The nodes left under `dir`'s subdirectories `node_dirs` ("" for `dir`
// itself), named relative to `dir`.
std::vector<std::string> nodes_left(const Server& server, const std::string& dir,
                                    const std::vector<std::string>& node_dirs);
// The watches left on the server that `allowed` does not excuse; a watch is
// named as Server::watches_of names it ("data /a", "child /a", ...).
std::size_t watches_left(const Server& server, const std::function<bool(const std::string&)>& allowed);

}  // namespace zksim::scenarios::detail
