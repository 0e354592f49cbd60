// zksim serve: the simulated ZooKeeper 3.8 server on a TCP port, for real
// clients (the C client, kazoo, Curator, zkCli). The protocol is
// wire/serve's Frontend; the server is zksim::Server; wall-clock time
// drives it. Runs until SIGINT or SIGTERM.
#include "commands.h"
#include "zksim/wire/serve_loop.h"

#include <fmt/format.h>

#include <atomic>
#include <csignal>

namespace zksim::cli {

namespace {

std::atomic<bool> g_stop{false};
static_assert(std::atomic<bool>::is_always_lock_free, "set from a signal handler");

extern "C" void on_stop_signal(int) { g_stop = true; }

}  // namespace

CommandSpec serve_spec() {
  return CommandSpec{
      .name = "serve",
      .summary = "serve the simulated ZooKeeper 3.8 server on a TCP port, to real clients",
      .options = {{"--host", "ADDRESS", "IPv4 address to listen on (default 127.0.0.1)"},
                  {"--port", "N", "TCP port (default 2181; 0: any free port, printed)"},
                  {"--tick-ms", "N", "the server's tickTime: session timeouts are clamped to 2..20 ticks (default 2000)"}},
      .details = "Prints 'serving on ADDRESS:PORT' once it listens, and serves until SIGINT or SIGTERM.\n"
                 "The server speaks ZooKeeper 3.8's client protocol as Debian's 3.8 server does\n"
                 "(docs/wire.md): one standalone server, state in memory, time from the wall clock.\n"
                 "It answers the four-letter words ruok, srvr, stat, mntr, cons, wchs and isro.\n\n"
                 "Exit status: 0 when stopped by SIGINT or SIGTERM, 2 on bad input or when it cannot\n"
                 "listen (the address is taken, ...)."};
}

int serve_main(const Args& args) {
  wire::ServeOptions options;
  options.host = args.text("--host", "127.0.0.1");
  options.port = static_cast<int>(args.integer("--port", 2181, 0, 65535));
  options.server.tick_ms = static_cast<int>(args.integer("--tick-ms", 2000, 1, 3600 * 1000));
  g_stop = false;
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  const std::string error = wire::serve(options, g_stop, [&](int port) {
    fmt::print("serving on {}:{}\n", options.host, port);
    std::fflush(stdout);
  });
  if (!error.empty()) {
    fmt::print(stderr, "zksim serve: {}\n", error);
    return 2;
  }
  return 0;
}

}  // namespace zksim::cli
