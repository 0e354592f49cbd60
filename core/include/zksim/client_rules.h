// What ZooKeeper's C client (3.8) refuses before sending a request, as
// measured through the real backend (tests/conformance). The simulated
// client applies these rules; the real backend applies the multi rule
// itself where the C client would misbehave.
#pragma once

#include "zksim/error.h"
#include "zksim/request.h"

#include <vector>

namespace zksim {

// Ok, or the error the C client gives without sending: BadArguments for a
// path it rejects, and for a TTL outside [1, 2^40) on a TTL mode or any TTL
// on another mode; NoWatcher for a removeWatches of a kind other than
// children, data or any; for a multi, see c_client_refusal(ops).
Error c_client_refusal(const Request& r);

// A multi: the first op the C client cannot send decides. MarshallingError
// for a path, Unimplemented for a TTL create (the C client has no multi
// TTL) and for a container create (the C client sends it but aborts on the
// reply, so both backends refuse it).
Error c_client_refusal(const std::vector<MultiOp>& ops);

}  // namespace zksim
