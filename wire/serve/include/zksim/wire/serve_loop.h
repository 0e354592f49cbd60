// `zksim serve`'s event loop: a TCP listener and poll() over its
// connections, with the Frontend (frontend.h) and the simulated server
// behind it, and optionally a second listener for the control interface
// (control.h). The wall clock enters here and nowhere else: the server's
// time is the wall clock's milliseconds since 1970 when the loop started,
// then advanced by the steady clock.
#pragma once

#include "zksim/server.h"
#include "zksim/wire/control.h"

#include <atomic>
#include <functional>
#include <string>

namespace zksim::wire {

struct ServeOptions {
  std::string host = "127.0.0.1";  // an IPv4 address to listen on
  int port = 2181;                 // 0: any free port
  int control_port = -1;           // the control interface's; -1: none, 0: any free port
  ServerConfig server;
  // How often containers and TTL nodes are reaped (ZooKeeper's
  // znode.container.checkIntervalMs).
  TimeMs container_check_ms = 60000;
  // Draws the trace for the control interface's text and html formats.
  TraceDrawer draw;
  // A control connection that has not sent a whole request head this long
  // after it connected is closed without an answer.
  TimeMs control_idle_ms = 20000;
};

struct Listening {
  int port = 0;
  int control_port = 0;  // 0 when there is none
};

// Serves until `stop` is set (looked at least every 100 ms). Calls
// `on_listening` once with the ports it listens on. Returns "" when it
// stopped as asked, otherwise why it could not serve (the address is taken,
// ...).
std::string serve(const ServeOptions& options, const std::atomic<bool>& stop,
                  const std::function<void(const Listening&)>& on_listening = {});

}  // namespace zksim::wire
