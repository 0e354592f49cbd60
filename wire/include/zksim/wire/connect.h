// The first message of a connection each way (zookeeper.jute
// ConnectRequest and ConnectResponse), each with an optional trailing
// read-only byte: current clients send it, and the server answers a request
// without it with a response without it (ZooKeeperServer.
// processConnectRequest and finishSessionInit, ServerCnxn.isOldClient).
#pragma once

#include "zksim/wire/decoded.h"
#include "zksim/wire/jute.h"

#include <cstdint>
#include <optional>
#include <string>

namespace zksim::wire {

struct ConnectRequest {
  std::int32_t protocol_version = 0;
  std::int64_t last_zxid_seen = 0;
  std::int32_t timeout_ms = 0;
  std::int64_t session_id = 0;             // 0: a new session
  std::optional<std::string> password;     // nullopt: null on the wire
  std::optional<bool> read_only;           // nullopt: an old client, no byte
  friend bool operator==(const ConnectRequest&, const ConnectRequest&) = default;
};

struct ConnectResponse {
  std::int32_t protocol_version = 0;
  std::int32_t timeout_ms = 0;             // negotiated; 0 with session 0: expired
  std::int64_t session_id = 0;
  std::optional<std::string> password;
  std::optional<bool> read_only;           // nullopt when the request had none
  friend bool operator==(const ConnectResponse&, const ConnectResponse&) = default;
};

// `body` is a frame without its length prefix. Bytes after the read-only
// byte are ignored, as the server ignores them. A body too short for the
// fixed fields is an error: the server closes the connection.
Decoded<ConnectRequest> decode_connect_request(ByteView body);
Decoded<ConnectResponse> decode_connect_response(ByteView body);

// Whole frames, length prefix included.
Bytes encode_connect_request(const ConnectRequest& request);
Bytes encode_connect_response(const ConnectResponse& response);

}  // namespace zksim::wire
