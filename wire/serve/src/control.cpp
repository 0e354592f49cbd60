#include "zksim/wire/control.h"

#include "zksim/path.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace zksim::wire {
namespace {

constexpr std::string_view kCommands[] = {"commands", "connections", "expire", "drop",
                                          "pause",    "close",       "sequence", "trace"};

// --- HTTP ---

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Percent-decoding; '+' is a space in a query. A malformed escape stays as is.
std::string decode(std::string_view s, bool query) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      const int hi = hex_digit(s[i + 1]), lo = hex_digit(s[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(query && s[i] == '+' ? ' ' : s[i]);
  }
  return out;
}

const char* reason(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    default: return "Error";
  }
}

// --- JSON ---

// A JSON string. Bytes that are not UTF-8 (a path may hold any) become U+FFFD.
std::string js(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if (c == '"' || c == '\\') {
        out += '\\';
        out += static_cast<char>(c);
      } else if (c < 0x20) {
        out += fmt::format("\\u{:04x}", c);
      } else {
        out += static_cast<char>(c);
      }
      ++i;
      continue;
    }
    const std::size_t n = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    bool valid = n > 0 && i + n <= s.size();
    for (std::size_t k = 1; valid && k < n; ++k) valid = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (valid) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\\ufffd";
      ++i;
    }
  }
  return out + "\"";
}

std::string session_text(SessionId s) { return fmt::format("\"0x{:x}\"", static_cast<std::uint64_t>(s.value)); }

const char* kind_name(TraceKind k) {
  switch (k) {
    case TraceKind::Request: return "request";
    case TraceKind::Response: return "response";
    case TraceKind::Watch: return "watch";
    case TraceKind::State: return "state";
    case TraceKind::Fault: return "fault";
    case TraceKind::Server: return "server";
    case TraceKind::Annotation: return "annotation";
    case TraceKind::Listener: return "listener";
  }
  return "?";
}

std::string event_json(const TraceEvent& e) {
  return fmt::format(
      R"({{"time":{},"kind":"{}","client":{},"session":{},"zxid":{},"code":{},"code2":{},"xid":{},"path":{},"detail":{},"text":{}}})",
      e.time, kind_name(e.kind), e.client, session_text(e.session), e.zxid, e.code, e.code2, e.xid, js(e.path),
      js(e.detail), js(render_event(e)));
}

// --- commands ---

ControlResult answer(std::string_view command, int status, std::string error, std::string fields = {}) {
  ControlResult r;
  r.response.status = status;
  r.response.body = fmt::format(R"({{"command":{},"error":{}{}}})", js(command),
                                error.empty() ? std::string("null") : js(error), fields);
  r.response.body += "\n";
  return r;
}

ControlResult ok(std::string_view command, std::string fields = {}) { return answer(command, 200, "", std::move(fields)); }

std::optional<std::int64_t> integer(const std::string& text) {
  std::int64_t v = 0;
  const bool hex = text.starts_with("0x") || text.starts_with("0X");
  const char* first = text.data() + (hex ? 2 : 0);
  const char* last = text.data() + text.size();
  if (first == last) return std::nullopt;
  const auto [end, ec] = std::from_chars(first, last, v, hex ? 16 : 10);
  if (ec != std::errc() || end != last) {
    // A session id above 2^63 in hex (server id 0x80 and up) still fits 64 bits.
    std::uint64_t u = 0;
    const auto [uend, uec] = std::from_chars(first, last, u, hex ? 16 : 10);
    if (uec != std::errc() || uend != last) return std::nullopt;
    return static_cast<std::int64_t>(u);
  }
  return v;
}

struct Command {
  const HttpRequest& request;
  Frontend& frontend;
  TimeMs now;
  std::string name;

  const std::string* param(const char* key) const {
    auto it = request.query.find(key);
    return it == request.query.end() ? nullptr : &it->second;
  }

  // The target of a fault: session=ID or client=IP:PORT, exactly one.
  // On failure `error` holds the answer.
  std::optional<Target> target(ControlResult& error) const {
    const std::string* session = param("session");
    const std::string* client = param("client");
    if ((session == nullptr) == (client == nullptr)) {
      error = answer(name, 400, "give session=ID (decimal or 0x hex) or client=IP:PORT");
      return std::nullopt;
    }
    if (client) return Target{SessionId{}, *client};
    const auto id = integer(*session);
    if (!id || *id == 0) {
      error = answer(name, 400, "session must be a non-zero number, decimal or 0x hex: " + *session);
      return std::nullopt;
    }
    return Target{SessionId{*id}, ""};
  }

  // The connection a target names, open now.
  std::optional<ConnectionId> connection(const Target& t, ControlResult& error) const {
    if (auto c = frontend.find(t)) return c;
    error = answer(name, 404, t.session.value ? fmt::format("no connection of session 0x{:x}", t.session.value)
                                              : "no connection from " + t.address);
    return std::nullopt;
  }

  // The session a target names: the session itself, or the session of the
  // connection from that address.
  std::optional<SessionId> session(const Target& t, ControlResult& error) const {
    if (t.session.value != 0) return t.session;
    const auto c = connection(t, error);
    if (!c) return std::nullopt;
    const SessionId s = frontend.session_of(*c);
    if (s.value == 0) {
      error = answer(name, 404, "the connection from " + t.address + " has no session yet");
      return std::nullopt;
    }
    return s;
  }

  ControlResult run(const TraceDrawer& draw);
  ControlResult trace(const TraceDrawer& draw);
};

ControlResult Command::run(const TraceDrawer& draw) {
  if (std::find(std::begin(kCommands), std::end(kCommands), name) == std::end(kCommands)) {
    return answer(name, 404, "Unknown command: " + name);
  }
  ControlResult error;
  if (name == "commands") {
    std::string list;
    for (std::string_view c : kCommands) {
      if (!list.empty()) list += ',';
      list += js(c);
    }
    return ok(name, R"(,"commands":[)" + list + "]");
  }
  if (name == "connections") {
    std::string list;
    for (const ConnectionInfo& c : frontend.connections()) {
      list += fmt::format(R"({}{{"id":{},"address":{},"session":{},"lane":{},"timeout_ms":{}}})",
                          list.empty() ? "" : ",", c.id, js(c.address), session_text(c.session), c.lane,
                          c.timeout_ms);
    }
    return ok(name, R"(,"connections":[)" + list + "]");
  }
  if (name == "trace") return trace(draw);
  if (name == "sequence") {
    const std::string* path = param("path");
    const std::string* counter = param("counter");
    const auto n = counter ? integer(*counter) : std::nullopt;
    if (!path || !n || *n < INT32_MIN || *n > INT32_MAX) {
      return answer(name, 400, "give path=/PARENT and counter=N (a 32-bit number)");
    }
    if (validate_path(*path) != Error::Ok) return answer(name, 400, "not a ZooKeeper path: " + *path);
    const auto r = frontend.set_sequence(*path, static_cast<std::int32_t>(*n), now);
    if (!r) return answer(name, 404, fmt::format("{}: {}", *path, r.error()));
    return ok(name, fmt::format(R"(,"path":{},"counter":{})", js(*path), *n));
  }
  const auto t = target(error);
  if (!t) return error;
  if (name == "expire") {
    const auto s = session(*t, error);
    if (!s) return error;
    auto r = frontend.expire(*s, now);
    if (!r) return answer(name, 404, fmt::format("session 0x{:x} is not alive", s->value));
    ControlResult done = ok(name, R"(,"session":)" + session_text(*s));
    done.deliveries = std::move(*r);
    return done;
  }
  if (name == "drop") {
    const std::string* when = param("when");
    const std::string* op = param("op");
    const std::string* path = param("path");
    FaultKind kind = FaultKind::DropBeforeApply;
    if (!when || (*when != "before" && *when != "after")) return answer(name, 400, "give when=before or when=after");
    if (*when == "after") kind = FaultKind::DropAfterApply;
    RequestMatch match;
    if (op) {
      for (std::int32_t k = 0; k < static_cast<std::int32_t>(std::variant_size_v<Request>); ++k) {
        if (request_kind_name(k) == *op) match.kind = k;
      }
      if (match.kind < 0) return answer(name, 400, "op names no request kind (create, delete, setData, ...): " + *op);
    }
    if (path) match.path_prefix = *path;
    const auto s = session(*t, error);
    if (!s) return error;
    const auto r = frontend.drop_next(*s, kind, match, now);
    if (!r) return answer(name, 404, fmt::format("session 0x{:x} is not alive", s->value));
    return ok(name, fmt::format(R"(,"session":{},"when":{},"op":{},"path":{})", session_text(*s), js(*when),
                                op ? js(*op) : "null", js(match.path_prefix)));
  }
  // pause or close: the rest take a connection.
  std::optional<std::int64_t> ms;
  if (name == "pause") {
    const std::string* text = param("ms");
    ms = text ? integer(*text) : std::nullopt;
    if (!ms || *ms < 0) return answer(name, 400, "give ms=MILLISECONDS (0 or more)");
  }
  const auto c = connection(*t, error);
  if (!c) return error;
  std::string fields = fmt::format(R"(,"connection":{},"session":{})", *c, session_text(frontend.session_of(*c)));
  if (name == "pause") {
    const auto r = frontend.pause(*c, *ms, now);
    if (!r) return answer(name, 404, "the connection is gone");
    return ok(name, fields + fmt::format(R"(,"ms":{})", *ms));
  }
  auto r = frontend.close(*c, now);
  if (!r) return answer(name, 404, "the connection is gone");
  ControlResult done = ok(name, fields);
  done.deliveries = std::move(*r);
  return done;
}

ControlResult Command::trace(const TraceDrawer& draw) {
  const std::string* format = param("format");
  const std::string f = format ? *format : "json";
  const std::vector<TraceEvent> events = frontend.trace();
  if (f == "json") {
    std::string list;
    for (const TraceEvent& e : events) {
      if (!list.empty()) list += ",\n";
      list += event_json(e);
    }
    return ok(name, fmt::format(R"(,"dropped":{},"events":[{}])", frontend.trace_dropped(), list));
  }
  int lanes = 0;
  for (const TraceEvent& e : events) lanes = std::max(lanes, e.client + 1);
  std::optional<std::string> drawn = draw ? draw(events, lanes, f) : std::nullopt;
  if (!drawn) return answer(name, 400, "format is json, text or html (text and html need zksim serve's timeline): " + f);
  ControlResult r;
  r.response.content_type = f == "html" ? "text/html; charset=utf-8" : "text/plain; charset=utf-8";
  r.response.body = std::move(*drawn);
  return r;
}

}  // namespace

namespace {

// RFC 9110's tchar: what a method and a header name are made of.
bool token_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}
bool visible(char c) { return c > 0x20 && c < 0x7f; }
// A header value's byte: visible, a space, a tab, or not ASCII (obs-text).
bool value_char(char c) { return c == ' ' || c == '\t' || visible(c) || static_cast<unsigned char>(c) >= 0x80; }

constexpr std::size_t kMaxMethod = 16;
constexpr std::string_view kVersion = "HTTP/1.";

// The request line's verdict from its first bytes; `end` is set to the
// index after its line end once it has one.
HeadVerdict scan_request_line(std::string_view b, std::size_t& end) {
  std::size_t i = 0;
  while (i < b.size() && token_char(b[i])) ++i;
  if (i > kMaxMethod) return HeadVerdict::NotHttp;
  if (i == b.size()) return HeadVerdict::Incomplete;
  if (i == 0 || b[i] != ' ') return HeadVerdict::NotHttp;
  if (++i == b.size()) return HeadVerdict::Incomplete;
  if (b[i] != '/') return HeadVerdict::NotHttp;
  while (i < b.size() && visible(b[i])) ++i;
  if (i == b.size()) return HeadVerdict::Incomplete;
  if (b[i] != ' ') return HeadVerdict::NotHttp;
  ++i;
  for (std::size_t k = 0; k < kVersion.size(); ++k, ++i) {
    if (i == b.size()) return HeadVerdict::Incomplete;
    if (b[i] != kVersion[k]) return HeadVerdict::NotHttp;
  }
  if (i == b.size()) return HeadVerdict::Incomplete;
  if (b[i] < '0' || b[i] > '9') return HeadVerdict::NotHttp;
  if (++i < b.size() && b[i] == '\r') ++i;
  if (i == b.size()) return HeadVerdict::Incomplete;
  if (b[i] != '\n') return HeadVerdict::NotHttp;
  end = i + 1;
  return HeadVerdict::Complete;
}

// A header line's verdict from its first bytes (`line` starts it and runs
// to the end of what was read); `end` is set after its line end, `blank`
// when it is the empty line that ends the head.
HeadVerdict scan_header_line(std::string_view line, std::size_t& end, bool& blank) {
  std::size_t i = 0;
  if (i < line.size() && line[i] == '\r') ++i;
  if (i < line.size() && line[i] == '\n') {
    end = i + 1;
    blank = true;
    return HeadVerdict::Complete;
  }
  if (i == line.size()) return HeadVerdict::Incomplete;
  if (i > 0) return HeadVerdict::NotHttp;  // a CR alone
  while (i < line.size() && token_char(line[i])) ++i;
  if (i == line.size()) return HeadVerdict::Incomplete;
  if (i == 0 || line[i] != ':') return HeadVerdict::NotHttp;
  ++i;
  while (i < line.size() && value_char(line[i])) ++i;
  if (i < line.size() && line[i] == '\r') ++i;
  if (i == line.size()) return HeadVerdict::Incomplete;
  if (line[i] != '\n') return HeadVerdict::NotHttp;
  end = i + 1;
  return HeadVerdict::Complete;
}

}  // namespace

HeadScan scan_http_head(std::string_view bytes) {
  std::size_t at = 0;
  HeadVerdict v = scan_request_line(bytes, at);
  if (v == HeadVerdict::NotHttp) return {v};
  if (v == HeadVerdict::Incomplete ? bytes.size() > kMaxRequestLine : at > kMaxRequestLine) {
    return {HeadVerdict::LineTooLong};
  }
  while (v == HeadVerdict::Complete) {
    std::size_t end = 0;
    bool blank = false;
    v = scan_header_line(bytes.substr(at), end, blank);
    if (v == HeadVerdict::Complete) at += end;
    if (at > kMaxHttpHead) return {HeadVerdict::HeadTooLarge};
    if (v == HeadVerdict::Complete && blank) return {HeadVerdict::Complete, at};
  }
  if (v == HeadVerdict::Incomplete && bytes.size() > kMaxHttpHead) return {HeadVerdict::HeadTooLarge};
  return {v};
}

HttpResponse http_refusal(HeadVerdict verdict) {
  const auto refused = [](int status, std::string_view why) {
    return HttpResponse{status, "application/json", fmt::format(R"({{"command":null,"error":{}}})", js(why)) + "\n"};
  };
  switch (verdict) {
    case HeadVerdict::LineTooLong:
      return refused(414, fmt::format("the request line is longer than {} bytes", kMaxRequestLine));
    case HeadVerdict::HeadTooLarge:
      return refused(431, fmt::format("the request head is larger than {} bytes", kMaxHttpHead));
    default: return refused(400, "not an HTTP/1.x request");
  }
}

std::optional<HttpRequest> parse_http_head(std::string_view head) {
  const std::size_t eol = head.find('\n');
  std::string_view line = head.substr(0, eol);
  if (line.ends_with('\r')) line.remove_suffix(1);
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos || sp1 == 0) return std::nullopt;
  if (!line.substr(sp2 + 1).starts_with("HTTP/1.")) return std::nullopt;
  HttpRequest r;
  r.method = std::string(line.substr(0, sp1));
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  if (!target.starts_with('/')) return std::nullopt;
  const std::size_t q = target.find('?');
  r.path = decode(target.substr(0, q), false);
  if (q != std::string_view::npos) {
    std::string_view rest = target.substr(q + 1);
    while (!rest.empty()) {
      const std::size_t amp = rest.find('&');
      const std::string_view pair = rest.substr(0, amp);
      const std::size_t eq = pair.find('=');
      if (!pair.empty()) {
        r.query[decode(pair.substr(0, eq), true)] =
            eq == std::string_view::npos ? std::string() : decode(pair.substr(eq + 1), true);
      }
      if (amp == std::string_view::npos) break;
      rest.remove_prefix(amp + 1);
    }
  }
  return r;
}

std::string encode_http(const HttpResponse& response) {
  return fmt::format("HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{}",
                     response.status, reason(response.status), response.content_type, response.body.size(),
                     response.body);
}

ControlResult control(const HttpRequest& request, Frontend& frontend, TimeMs now, const TraceDrawer& draw) {
  constexpr std::string_view kPrefix = "/commands";
  std::string_view path = request.path;
  if (path.ends_with('/') && path.size() > 1) path.remove_suffix(1);
  if (path == kPrefix || path == "/") path = "/commands/commands";
  if (!path.starts_with("/commands/")) return answer(path, 404, "Unknown path: " + std::string(path) + " (try /commands)");
  const std::string name(path.substr(kPrefix.size() + 1));
  if (request.method != "GET" && request.method != "POST") {
    return answer(name, 405, "use GET or POST, not " + request.method);
  }
  return Command{request, frontend, now, name}.run(draw);
}

}  // namespace zksim::wire
