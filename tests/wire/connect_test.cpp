// The connect handshake, from the captures.
#include "capture_file.h"
#include "zksim/wire/connect.h"

#include <gtest/gtest.h>

namespace zksim::wire::test {
namespace {

const CapturedFrame& first(const Capture& c, int conn, bool to_server) {
  return *c.of(conn, to_server).at(0);
}

TEST(Connect, AConnectRequestWithTheReadOnlyByteDecodes) {
  const Capture c = load_capture("c_client.hex");
  const auto req = decode_connect_request(first(c, c.connections()[0], true).body());
  ASSERT_TRUE(req);
  EXPECT_EQ(req->protocol_version, 0);
  EXPECT_EQ(req->last_zxid_seen, 0);
  EXPECT_EQ(req->timeout_ms, 4000);
  EXPECT_EQ(req->session_id, 0);
  ASSERT_TRUE(req->password.has_value());
  EXPECT_EQ(req->password->size(), 16u);
  EXPECT_EQ(req->read_only, false);
}

TEST(Connect, AConnectRequestWithoutTheReadOnlyByteDecodes) {
  const Capture c = load_capture("probes.hex");
  const int conn = c.probe_conn("connect-without-read-only-byte");
  const auto req = decode_connect_request(first(c, conn, true).body());
  ASSERT_TRUE(req);
  EXPECT_EQ(req->timeout_ms, 4000);
  EXPECT_FALSE(req->read_only.has_value());
}

// ServerCnxn.isOldClient: no read-only byte in, none out.
TEST(Connect, TheServerAnswersARequestWithoutTheReadOnlyByteWithoutOne) {
  const Capture c = load_capture("probes.hex");
  const auto old_client = decode_connect_response(first(c, c.probe_conn("connect-without-read-only-byte"), false).body());
  const auto new_client = decode_connect_response(first(c, c.probe_conn("create-and-read-null-data"), false).body());
  ASSERT_TRUE(old_client);
  ASSERT_TRUE(new_client);
  EXPECT_FALSE(old_client->read_only.has_value());
  EXPECT_EQ(new_client->read_only, false);
  EXPECT_EQ(old_client->timeout_ms, 4000);
  EXPECT_NE(old_client->session_id, 0);
  EXPECT_EQ(old_client->password->size(), 16u);
}

TEST(Connect, AReconnectCarriesTheSessionIdPasswordAndLastZxid) {
  const Capture c = load_capture("c_client.hex");
  const auto granted = decode_connect_response(first(c, 1, false).body());
  const auto again = decode_connect_request(first(c, 2, true).body());
  ASSERT_TRUE(granted);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->session_id, granted->session_id);
  EXPECT_EQ(again->password, granted->password);
  EXPECT_GT(again->last_zxid_seen, 0);
}

TEST(Connect, EveryCapturedHandshakeReencodesByteForByte) {
  int checked = 0;
  for (const char* file : {"c_client.hex", "kazoo.hex", "zkcli.hex", "probes.hex"}) {
    const Capture c = load_capture(file);
    for (int conn : c.connections()) {
      const auto out = c.of(conn, true);
      const auto in = c.of(conn, false);
      ASSERT_FALSE(out.empty());
      const auto req = decode_connect_request(out[0]->body());
      ASSERT_TRUE(req) << file << " connection " << conn;
      EXPECT_EQ(encode_connect_request(*req), out[0]->bytes) << file << " connection " << conn;
      if (in.empty()) continue;
      const auto rsp = decode_connect_response(in[0]->body());
      ASSERT_TRUE(rsp) << file << " connection " << conn;
      EXPECT_EQ(encode_connect_response(*rsp), in[0]->bytes) << file << " connection " << conn;
      ++checked;
    }
  }
  EXPECT_GT(checked, 30);
}

TEST(Connect, ATruncatedConnectRequestIsAnError) {
  const Capture c = load_capture("c_client.hex");
  const ByteView body = first(c, 1, true).body();
  // Up to the password's last byte the request is incomplete; with the
  // password whole and the read-only byte missing, it is an old client's.
  for (std::size_t n = 0; n + 1 < body.size(); ++n) {
    const auto req = decode_connect_request(body.first(n));
    EXPECT_FALSE(req) << n;
  }
  EXPECT_TRUE(decode_connect_request(body.first(body.size() - 1)));
}

}  // namespace
}  // namespace zksim::wire::test
