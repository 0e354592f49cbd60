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

#include "zksim/zk_trace.h"
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

// What the bytes read so far of a request can be. A verdict other than
// Incomplete is final: the loop answers it at once (the error ones with
// http_refusal), so a connection never makes it keep more than the limits
// below, and garbage is refused at its first byte that no request could
// have, not when the connection falls idle.
enum class HeadVerdict {
  Incomplete,    // a request's beginning: read on
  Complete,      // the head is the first `size` bytes, through its blank line
  NotHttp,       // 400: no HTTP/1.x request line, or a header line no request has
  LineTooLong,   // 414: the request line passes kMaxRequestLine
  HeadTooLarge,  // 431: the head passes kMaxHttpHead
};
struct HeadScan {
  HeadVerdict verdict = HeadVerdict::Incomplete;
  std::size_t size = 0;  // when Complete
};
// The request line, its line end included, is at most this long; the
// head, through its blank line, at most kMaxHttpHead.
inline constexpr std::size_t kMaxRequestLine = 8 * 1024;
inline constexpr std::size_t kMaxHttpHead = 16 * 1024;
// Reads the request line as `METHOD SP /target SP HTTP/1.d`, the method
// a token of at most 16 characters and the target visible ASCII, then
// header lines `name: value` (a token, a colon, then no control character
// but tab), each ended by CRLF or LF.
HeadScan scan_http_head(std::string_view bytes);

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
};
// The answer to a head refused by scan_http_head (NotHttp, LineTooLong or
// HeadTooLarge): its status and a JSON error.
HttpResponse http_refusal(HeadVerdict verdict);
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
// parameter (a path that is no ZooKeeper path among them), 405 for a method
// other than GET and POST; the body's "error" says what.
ControlResult control(const HttpRequest& request, Frontend& frontend, TimeMs now, const TraceDrawer& draw = {});

}  // namespace zksim::wire
