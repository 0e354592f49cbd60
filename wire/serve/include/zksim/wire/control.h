// `zksim serve`'s control interface: HTTP/1.1 with JSON answers, in the
// style of ZooKeeper's admin server (GET /commands/<name>, each answer an
// object with "command" and "error"). It injects faults into the simulated
// server behind the frontend, lists connections and dumps the trace. Pure:
// the serve loop reads the HTTP request off its socket, this answers it.
//
//   GET /commands/connections                     who is connected: id, address, session, lane
//   GET /commands/expire?session=0x1000000000000  (or client=127.0.0.1:40412)
//   GET /commands/drop?session=...&when=after&op=create&path=/locks/
//   GET /commands/pause?client=127.0.0.1:40412&ms=3000
//   GET /commands/close?session=...
//   GET /commands/sequence?path=/queue&counter=2147483600
//   GET /commands/trace?format=json|text|html
//
// POST is taken the same way (parameters in the query string). docs/wire.md
// says why HTTP, and gives clients in Python and Java.
#pragma once

#include "zksim/trace.h"
#include "zksim/wire/frontend.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zksim::wire {

struct HttpRequest {
  std::string method;                         // "GET", ...
  std::string path;                           // "/commands/expire", percent-decoded
  std::map<std::string, std::string> query;   // percent-decoded; a repeated key keeps the last
};

// Parses a request's head: the request line and headers, up to (not
// including) the blank line. nullopt when it is not an HTTP/1.x request.
std::optional<HttpRequest> parse_http_head(std::string_view head);

// The size of the head at the front of `bytes` (through its blank line),
// or 0 while it is incomplete.
std::size_t http_head_size(std::string_view bytes);

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};
// The response's bytes, with Content-Length and "Connection: close".
std::string encode_http(const HttpResponse& response);

// Draws the trace as `zksim timeline` does: `format` "text" (the text
// timeline of `zksim replay`) or "html" (the page of `zksim timeline
// --html`); nullopt for a format it does not draw. `lanes` is the number of
// sessions the trace has lanes for.
using TraceDrawer =
    std::function<std::optional<std::string>(const std::vector<TraceEvent>& events, int lanes, std::string_view format)>;

struct ControlResult {
  HttpResponse response;
  std::vector<Delivery> deliveries;  // what a fault sends (connections closed, events fired)
};

// Runs the command `request` names against `frontend` at `now`. Errors are
// answers: 404 for an unknown command or a target not found, 400 for a bad
// parameter, 405 for a method other than GET and POST; the body's "error"
// says what.
ControlResult control(const HttpRequest& request, Frontend& frontend, TimeMs now, const TraceDrawer& draw = {});

}  // namespace zksim::wire
