#pragma once
#include "zksim/scenarios/scenario.h"
#include <string>
namespace zksim::timeline {
// A text timeline of a run: a column per client (requests, responses, watch events, state changes, faults, holding/waiting).
std::string text(const scenarios::Scenario& s, const scenarios::ScenarioRun& run);
// A self-contained HTML page (no network fetches): swimlanes per client and per znode over simulated time.
std::string html(const scenarios::Scenario& s, const scenarios::ScenarioRun& run);
}
