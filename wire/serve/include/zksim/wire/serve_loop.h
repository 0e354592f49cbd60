// `zksim serve`'s event loop: a TCP listener and poll() over its
// connections, with the Frontend (frontend.h) and the simulated server
// behind it. The wall clock enters here and nowhere else: the server's time
// is the wall clock's milliseconds since 1970 when the loop started, then
// advanced by the steady clock.
#pragma once

#include "zksim/server.h"

#include <atomic>
#include <functional>
#include <string>

namespace zksim::wire {

struct ServeOptions {
  std::string host = "127.0.0.1";  // an IPv4 address to listen on
  int port = 2181;                 // 0: any free port
  ServerConfig server;
};

// Serves until `stop` is set (looked at least every 100 ms). Calls
// `on_listening` once with the port it listens on. Returns "" when it
// stopped as asked, otherwise why it could not serve (the address is taken,
// ...).
std::string serve(const ServeOptions& options, const std::atomic<bool>& stop,
                  const std::function<void(int port)>& on_listening = {});

}  // namespace zksim::wire
