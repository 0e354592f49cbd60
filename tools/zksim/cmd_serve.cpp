// zksim serve: the simulated ZooKeeper 3.8 server on a TCP port, for real
// clients (the C client, kazoo, Curator, zkCli), with a control interface
// for faults. The protocol is wire/serve's Frontend; the server is
// zksim::Server; wall-clock time drives it. Runs until SIGINT or SIGTERM.
#include "commands.h"
#include "zksim/timeline/timeline.h"
#include "zksim/wire/serve_loop.h"

#include <fmt/format.h>

#include <atomic>
#include <csignal>

namespace zksim::cli {

namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

extern "C" void on_stop_signal(int) { g_stop = true; }

// The control interface's trace, drawn as `zksim replay` and `zksim
// timeline --html` draw a run: one lane per session, no verdict.
std::optional<std::string> draw_trace(const std::vector<TraceEvent>& events, int lanes, std::string_view format) {
  if (format != "text" && format != "html") return std::nullopt;
  scenarios::Scenario s;
  s.workload.recipe = "zksim serve";
  s.workload.clients = lanes;
  s.comments = {"zksim serve: the server's trace, one lane per session (c0, c1, ... in the order they opened)",
                "times in ms since the server started; pings are not shown"};
  scenarios::ScenarioRun run;
  run.result.trace = events;
  run.result.trace_events = events.size();
  return format == "text" ? timeline::text(s, run) : timeline::html(s, run);
}

}  // namespace

CommandSpec serve_spec() {
  return CommandSpec{
      .name = "serve",
      .summary = "serve the simulated ZooKeeper 3.8 server on a TCP port, to real clients",
      .options = {{"--host", "ADDRESS", "IPv4 address to listen on (default 127.0.0.1)"},
                  {"--port", "N", "TCP port (default 2181; 0: any free port, printed)"},
                  {"--control-port", "N", "serve the control interface (HTTP, JSON) on this port (0: any free port, printed)"},
                  {"--tick-ms", "N", "the server's tickTime: session timeouts are clamped to 2..20 ticks (default 2000)"},
                  {"--container-check-ms", "N", "how often empty containers and expired TTL nodes are reaped (default 60000)"}},
      .details = "Prints 'serving on ADDRESS:PORT' once it listens (and 'control on ADDRESS:PORT' with\n"
                 "--control-port), and serves until SIGINT or SIGTERM.\n"
                 "The server speaks ZooKeeper 3.8's client protocol as Debian's 3.8 server does\n"
                 "(docs/wire.md): one standalone server, state in memory, time from the wall clock.\n"
                 "It answers the four-letter words ruok, srvr, stat, mntr, cons, wchs, isro, conf,\n"
                 "envi and dump.\n\n"
                 "The control interface takes GET or POST /commands/NAME?PARAMS and answers JSON:\n"
                 "  connections                          who is connected (id, address, session, lane)\n"
                 "  expire?session=ID|client=IP:PORT     expire the session now\n"
                 "  drop?session=..&when=before|after[&op=create][&path=/prefix]\n"
                 "                                       drop the connection at the session's next such request\n"
                 "  pause?session=..|client=..&ms=T      hold the connection's replies for T ms\n"
                 "  close?session=..|client=..           close the connection (the session lives on)\n"
                 "  sequence?path=/P&counter=N           the next sequential child of /P gets suffix N\n"
                 "  trace[?format=json|text|html]        the server's trace; text and html as zksim timeline draws\n\n"
                 "Exit status: 0 when stopped by SIGINT or SIGTERM, 2 on bad input or when it cannot\n"
                 "listen (the address is taken, ...)."};
}

int serve_main(const Args& args) {
  wire::ServeOptions options;
  options.host = args.text("--host", "127.0.0.1");
  options.port = static_cast<int>(args.integer("--port", 2181, 0, 65535));
  if (args.has("--control-port")) options.control_port = static_cast<int>(args.integer("--control-port", 0, 0, 65535));
  options.server.tick_ms = static_cast<int>(args.integer("--tick-ms", 2000, 1, 3600 * 1000));
  options.container_check_ms = args.integer("--container-check-ms", 60000, 1, 24 * 3600 * 1000);
  options.draw = draw_trace;
  g_stop = false;
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  const std::string error = wire::serve(options, g_stop, [&](const wire::Listening& l) {
    fmt::print("serving on {}:{}\n", options.host, l.port);
    if (l.control_port) fmt::print("control on {}:{}\n", options.host, l.control_port);
    std::fflush(stdout);
  });
  if (!error.empty()) {
    fmt::print(stderr, "zksim serve: {}\n", error);
    return 2;
  }
  return 0;
}

}  // namespace zksim::cli
