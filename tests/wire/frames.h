// Frames a client sends and the handshake, for tests that drive a Frontend
// by hand.
#pragma once

#include "zksim/wire/connect.h"
#include "zksim/wire/frontend.h"
#include "zksim/wire/request.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace zksim::wire::test {

inline Bytes connect_frame(std::int64_t session = 0, std::string password = std::string(16, '\0'),
                           int timeout_ms = 4000) {
  ConnectRequest c;
  c.timeout_ms = timeout_ms;
  c.session_id = session;
  c.password = std::move(password);
  c.read_only = false;
  return encode_connect_request(c);
}

inline Bytes request_frame(std::int32_t xid, OpCode code, Body body) {
  RequestFrame f;
  f.xid = xid;
  f.code = code;
  f.body = std::move(body);
  return encode_request(f);
}

inline ConnectResponse handshake(Frontend& fe, ConnectionId c, const Bytes& frame, TimeMs now) {
  const auto out = fe.receive(c, frame, now);
  EXPECT_EQ(out.size(), 1u);
  const auto rsp = decode_connect_response(ByteView(out.at(0).bytes).subspan(4));
  EXPECT_TRUE(rsp);
  return *rsp;
}

inline Bytes text_bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }
inline std::string text_of(const Bytes& b) { return std::string(b.begin(), b.end()); }

}  // namespace zksim::wire::test
