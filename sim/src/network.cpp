#include "network.h"

#include <algorithm>

namespace zksim {

Network::Network(runtime::EventLoop& loop, DecisionSource& decisions, TimeMs latency_ms, std::uint32_t delay_choices,
                 Hooks hooks)
    : loop_(loop), decisions_(decisions), latency_ms_(latency_ms), delay_choices_(delay_choices),
      hooks_(std::move(hooks)),
      up_channel_(loop.add_channel([](void* n, std::uint64_t c) { static_cast<Network*>(n)->deliver_up(c); }, this)),
      down_channel_(
          loop.add_channel([](void* n, std::uint64_t c) { static_cast<Network*>(n)->deliver_down(c); }, this)) {}

std::uint64_t Network::open(int handle, int server) {
  conns_.push_back(std::make_unique<Conn>());
  Conn& c = *conns_.back();
  c.handle = handle;
  c.server = server;
  return conns_.size() - 1;
}

TimeMs Network::delay(int handle) {
  return latency_ms_ + static_cast<TimeMs>(decisions_.pick_for(delay_choices_, hooks_.actor(handle))) * latency_ms_;
}

void Network::send_up(std::uint64_t conn, UpMsg msg) {
  Conn* c = find(conn);
  if (!c) return;
  const TimeMs t = std::max(loop_.now() + delay(c->handle), c->up_last);
  c->up_last = t;
  c->up.push_back(std::move(msg));
  loop_.post(t, up_channel_, conn);
}

void Network::send_down(std::uint64_t conn, DownMsg msg) {
  Conn* c = find(conn);
  if (!c) return;
  if (!c->server_open && msg.kind != DownMsg::Closed) return;
  const TimeMs t = std::max(loop_.now() + delay(c->handle) + c->extra_delay_next, c->down_last);
  c->extra_delay_next = 0;
  c->down_last = t;
  c->down.push_back(std::move(msg));
  loop_.post(t, down_channel_, conn);
}

void Network::free_if_done(std::uint64_t conn) {
  const Conn* c = find(conn);
  if (c && !c->client_open && c->up.empty() && c->down.empty()) conns_[static_cast<std::size_t>(conn)].reset();
}

void Network::deliver_up(std::uint64_t conn) {
  Conn* c = find(conn);
  if (!c) return;
  // Served in place: the server never sends on an up channel, so the front
  // stays put until it is popped.
  if (c->server_open) hooks_.at_server(conn, c->up.front());
  c->up.pop_front();
  free_if_done(conn);
}

void Network::deliver_down(std::uint64_t conn) {
  Conn* c = find(conn);
  if (!c) return;
  // Handled in place: the client never sends on a down channel, and a
  // connection with a message in it is never freed, so `c` stays valid.
  if (c->client_open) hooks_.at_client(conn, c->down.front());
  c->down.pop_front();
  free_if_done(conn);
}

}  // namespace zksim
