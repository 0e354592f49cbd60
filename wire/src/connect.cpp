#include "zksim/wire/connect.h"

namespace zksim::wire {

// The read-only byte is read only if there is one: the server tries it and
// takes an IOException to mean an old client (processConnectRequest).
Decoded<ConnectRequest> decode_connect_request(ByteView body) {
  Reader r(body);
  ConnectRequest c;
  r.read_int(c.protocol_version);
  r.read_long(c.last_zxid_seen);
  r.read_int(c.timeout_ms);
  r.read_long(c.session_id);
  if (!r.read_buffer(c.password)) return r.failure();
  if (r.remaining() > 0) {
    bool ro = false;
    r.read_bool(ro);
    c.read_only = ro;
  }
  return c;
}

Decoded<ConnectResponse> decode_connect_response(ByteView body) {
  Reader r(body);
  ConnectResponse c;
  r.read_int(c.protocol_version);
  r.read_int(c.timeout_ms);
  r.read_long(c.session_id);
  if (!r.read_buffer(c.password)) return r.failure();
  if (r.remaining() > 0) {
    bool ro = false;
    r.read_bool(ro);
    c.read_only = ro;
  }
  return c;
}

Bytes encode_connect_request(const ConnectRequest& c) {
  Bytes out;
  Writer w(out);
  const std::size_t mark = w.begin_frame();
  w.write_int(c.protocol_version);
  w.write_long(c.last_zxid_seen);
  w.write_int(c.timeout_ms);
  w.write_long(c.session_id);
  w.write_buffer(c.password);
  if (c.read_only) w.write_bool(*c.read_only);
  w.end_frame(mark);
  return out;
}

Bytes encode_connect_response(const ConnectResponse& c) {
  Bytes out;
  Writer w(out);
  const std::size_t mark = w.begin_frame();
  w.write_int(c.protocol_version);
  w.write_int(c.timeout_ms);
  w.write_long(c.session_id);
  w.write_buffer(c.password);
  if (c.read_only) w.write_bool(*c.read_only);
  w.end_frame(mark);
  return out;
}

}  // namespace zksim::wire
