// A client of etcd's gRPC gateway (JSON over HTTP, etcd 3.4's /v3/...
// paths) with libcurl, and the gateway's JSON for this model's requests and
// responses. The conformance test renders the model's answer as the JSON
// the gateway would send and compares it with what the real server sent.
#pragma once

#include "zksim/etcd/types.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace zksim::etcd::test {

using nlohmann::json;

// The gateway's JSON (grpc-gateway's JSONPb with proto field names, no
// defaults): int64 as strings, bytes in base64, enums by name, and zero,
// false, empty and absent fields left out.
json to_json(const RangeRequest& r);
json to_json(const PutRequest& r);
json to_json(const DeleteRangeRequest& r);
json to_json(const TxnRequest& r);
json to_json(const LeaseGrantRequest& r);
json to_json(const WatchRequest& r);  // the create_request

json to_json(const KeyValue& kv);
json to_json(const Header& h);
json to_json(const RangeResponse& r);
json to_json(const PutResponse& r);
json to_json(const DeleteRangeResponse& r);
json to_json(const TxnResponse& r);
json to_json(const CompactionResponse& r);
json to_json(const LeaseGrantResponse& r);
json to_json(const LeaseRevokeResponse& r);
json to_json(const LeaseKeepAliveResponse& r);
json to_json(const LeaseTimeToLiveResponse& r);
// Events, canceled and compact_revision; no header.
json to_json(const WatchResponse& r);
// An error as the gateway sends it: {"code", "error", "message"}.
json error_json(Error e);

template <class T>
json to_json(const Result<T>& r) {
  return r.ok() ? to_json(r.value()) : error_json(r.error());
}

class Gateway {
 public:
  explicit Gateway(std::string endpoint) : endpoint_(std::move(endpoint)) {}

  // POSTs `body` to `path` ("/v3/kv/range") and returns the reply with the
  // cluster's identity (cluster_id, member_id, raft_term) taken out of its
  // header, so that it reads like to_json of the model's answer. A
  // streaming reply of one message (keepalive) is unwrapped from "result".
  json call(const std::string& path, const json& body);

  // Creates a watch and reads its stream until an event at `until_revision`
  // or later has come, or it was canceled, or `quiet_ms` passed without a
  // message. Returns what to_json(WatchResponse) would: every event of
  // every message, canceled and compact_revision.
  json watch(const WatchRequest& request, std::int64_t until_revision, int quiet_ms = 300);

 private:
  std::string endpoint_;
};

}  // namespace zksim::etcd::test
