#include "gateway.h"

#include <curl/curl.h>

#include <array>
#include <cstdint>
#include <type_traits>
#include <variant>

namespace zksim::etcd::test {
namespace {

constexpr std::string_view kBase64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(std::string_view in) {
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    const auto n = (std::uint32_t(std::uint8_t(in[i])) << 16) | (std::uint32_t(std::uint8_t(in[i + 1])) << 8) |
                   std::uint8_t(in[i + 2]);
    for (int s : {18, 12, 6, 0}) out += kBase64[(n >> s) & 63];
  }
  if (i + 1 == in.size()) {
    const auto n = std::uint32_t(std::uint8_t(in[i])) << 16;
    out += kBase64[(n >> 18) & 63];
    out += kBase64[(n >> 12) & 63];
    out += "==";
  } else if (i + 2 == in.size()) {
    const auto n = (std::uint32_t(std::uint8_t(in[i])) << 16) | (std::uint32_t(std::uint8_t(in[i + 1])) << 8);
    for (int s : {18, 12, 6}) out += kBase64[(n >> s) & 63];
    out += '=';
  }
  return out;
}

void set_bytes(json& j, const char* name, const std::string& v) {
  if (!v.empty()) j[name] = base64(v);
}
void set_int(json& j, const char* name, std::int64_t v) {
  if (v != 0) j[name] = std::to_string(v);
}
void set_bool(json& j, const char* name, bool v) {
  if (v) j[name] = true;
}

constexpr std::array kSortOrder{"NONE", "ASCEND", "DESCEND"};
constexpr std::array kSortTarget{"KEY", "VERSION", "CREATE", "MOD", "VALUE"};
constexpr std::array kCompareResult{"EQUAL", "GREATER", "LESS", "NOT_EQUAL"};
constexpr std::array kCompareTarget{"VERSION", "CREATE", "MOD", "VALUE", "LEASE"};

json op_json(const RequestOp& op) {
  return std::visit(
      [](const auto& r) -> json {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, RangeRequest>) return {{"request_range", to_json(r)}};
        if constexpr (std::is_same_v<T, PutRequest>) return {{"request_put", to_json(r)}};
        if constexpr (std::is_same_v<T, DeleteRangeRequest>) return {{"request_delete_range", to_json(r)}};
      },
      op);
}

json op_json(const ResponseOp& op) {
  return std::visit(
      [](const auto& r) -> json {
        using T = std::decay_t<decltype(r)>;
        if constexpr (std::is_same_v<T, RangeResponse>) return {{"response_range", to_json(r)}};
        if constexpr (std::is_same_v<T, PutResponse>) return {{"response_put", to_json(r)}};
        if constexpr (std::is_same_v<T, DeleteRangeResponse>) return {{"response_delete_range", to_json(r)}};
      },
      op);
}

json event_json(const Event& e) {
  json j = json::object();
  if (e.type == Event::Type::Delete) j["type"] = "DELETE";
  j["kv"] = to_json(e.kv);
  if (e.prev_kv) j["prev_kv"] = to_json(*e.prev_kv);
  return j;
}

std::size_t collect(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

void strip_identity(json& j) {
  if (!j.is_object()) return;
  if (auto h = j.find("header"); h != j.end() && h->is_object()) {
    for (auto f : {"cluster_id", "member_id", "raft_term"}) h->erase(f);
  }
}

// A watch stream's reader: its messages, and when to stop reading.
struct WatchStream {
  std::string buffer;
  std::vector<json> messages;
  std::int64_t until_revision = 0;
  bool done = false;
};

std::size_t on_watch_data(char* data, std::size_t size, std::size_t n, void* p) {
  auto& s = *static_cast<WatchStream*>(p);
  s.buffer.append(data, size * n);
  for (auto nl = s.buffer.find('\n'); nl != std::string::npos; nl = s.buffer.find('\n')) {
    json m = json::parse(s.buffer.substr(0, nl), nullptr, false);
    s.buffer.erase(0, nl + 1);
    if (m.is_discarded()) continue;
    const json& result = m.contains("result") ? m["result"] : m;
    if (result.value("canceled", false) || m.contains("error")) s.done = true;
    for (const auto& e : result.value("events", json::array())) {
      if (std::stoll(e["kv"].value("mod_revision", "0")) >= s.until_revision) s.done = true;
    }
    s.messages.push_back(std::move(m));
  }
  return s.done ? 0 : size * n;  // 0 makes curl stop the transfer
}

}  // namespace

json to_json(const RangeRequest& r) {
  json j = json::object();
  set_bytes(j, "key", r.key);
  set_bytes(j, "range_end", r.range_end);
  set_int(j, "limit", r.limit);
  set_int(j, "revision", r.revision);
  if (r.sort_order != RangeRequest::SortOrder::None) j["sort_order"] = kSortOrder[int(r.sort_order)];
  if (r.sort_target != RangeRequest::SortTarget::Key) j["sort_target"] = kSortTarget[int(r.sort_target)];
  set_bool(j, "keys_only", r.keys_only);
  set_bool(j, "count_only", r.count_only);
  set_int(j, "min_mod_revision", r.min_mod_revision);
  set_int(j, "max_mod_revision", r.max_mod_revision);
  set_int(j, "min_create_revision", r.min_create_revision);
  set_int(j, "max_create_revision", r.max_create_revision);
  return j;
}

json to_json(const PutRequest& r) {
  json j = json::object();
  set_bytes(j, "key", r.key);
  set_bytes(j, "value", r.value);
  set_int(j, "lease", r.lease);
  set_bool(j, "prev_kv", r.prev_kv);
  set_bool(j, "ignore_value", r.ignore_value);
  set_bool(j, "ignore_lease", r.ignore_lease);
  return j;
}

json to_json(const DeleteRangeRequest& r) {
  json j = json::object();
  set_bytes(j, "key", r.key);
  set_bytes(j, "range_end", r.range_end);
  set_bool(j, "prev_kv", r.prev_kv);
  return j;
}

json to_json(const TxnRequest& r) {
  json j = json::object();
  for (const auto& c : r.compare) {
    json cj = {{"result", kCompareResult[int(c.result)]}, {"target", kCompareTarget[int(c.target)]}};
    set_bytes(cj, "key", c.key);
    set_bytes(cj, "range_end", c.range_end);
    switch (c.target) {
      case Compare::Target::Version: cj["version"] = std::to_string(c.number); break;
      case Compare::Target::Create: cj["create_revision"] = std::to_string(c.number); break;
      case Compare::Target::Mod: cj["mod_revision"] = std::to_string(c.number); break;
      case Compare::Target::Lease: cj["lease"] = std::to_string(c.number); break;
      case Compare::Target::Value: cj["value"] = base64(c.value); break;
    }
    j["compare"].push_back(std::move(cj));
  }
  for (const auto& op : r.success) j["success"].push_back(op_json(op));
  for (const auto& op : r.failure) j["failure"].push_back(op_json(op));
  return j;
}

json to_json(const LeaseGrantRequest& r) {
  json j = json::object();
  set_int(j, "TTL", r.ttl);
  set_int(j, "ID", r.id);
  return j;
}

json to_json(const WatchRequest& r) {
  json j = json::object();
  set_bytes(j, "key", r.key);
  set_bytes(j, "range_end", r.range_end);
  set_int(j, "start_revision", r.start_revision);
  set_bool(j, "prev_kv", r.prev_kv);
  if (r.no_put) j["filters"].push_back("NOPUT");
  if (r.no_delete) j["filters"].push_back("NODELETE");
  return j;
}

json to_json(const KeyValue& kv) {
  json j = json::object();
  set_bytes(j, "key", kv.key);
  set_int(j, "create_revision", kv.create_revision);
  set_int(j, "mod_revision", kv.mod_revision);
  set_int(j, "version", kv.version);
  set_bytes(j, "value", kv.value);
  set_int(j, "lease", kv.lease);
  return j;
}

json to_json(const Header& h) {
  json j = json::object();
  set_int(j, "revision", h.revision);
  return j;
}

json to_json(const RangeResponse& r) {
  json j = {{"header", to_json(r.header)}};
  for (const auto& kv : r.kvs) j["kvs"].push_back(to_json(kv));
  set_bool(j, "more", r.more);
  set_int(j, "count", r.count);
  return j;
}

json to_json(const PutResponse& r) {
  json j = {{"header", to_json(r.header)}};
  if (r.prev_kv) j["prev_kv"] = to_json(*r.prev_kv);
  return j;
}

json to_json(const DeleteRangeResponse& r) {
  json j = {{"header", to_json(r.header)}};
  set_int(j, "deleted", r.deleted);
  for (const auto& kv : r.prev_kvs) j["prev_kvs"].push_back(to_json(kv));
  return j;
}

json to_json(const TxnResponse& r) {
  json j = {{"header", to_json(r.header)}};
  set_bool(j, "succeeded", r.succeeded);
  for (const auto& op : r.responses) j["responses"].push_back(op_json(op));
  return j;
}

json to_json(const CompactionResponse& r) { return {{"header", to_json(r.header)}}; }

json to_json(const LeaseGrantResponse& r) {
  json j = {{"header", to_json(r.header)}};
  set_int(j, "ID", r.id);
  set_int(j, "TTL", r.ttl);
  return j;
}

json to_json(const LeaseRevokeResponse& r) { return {{"header", to_json(r.header)}}; }

json to_json(const LeaseKeepAliveResponse& r) {
  json j = {{"header", to_json(r.header)}};
  set_int(j, "ID", r.id);
  set_int(j, "TTL", r.ttl);
  return j;
}

json to_json(const LeaseTimeToLiveResponse& r) {
  json j = {{"header", to_json(r.header)}};
  set_int(j, "ID", r.id);
  set_int(j, "TTL", r.ttl);
  set_int(j, "grantedTTL", r.granted_ttl);
  for (const auto& k : r.keys) j["keys"].push_back(base64(k));
  return j;
}

json to_json(const WatchResponse& r) {
  json j = {{"events", json::array()}};
  for (const auto& e : r.events) j["events"].push_back(event_json(e));
  set_bool(j, "canceled", r.canceled);
  set_int(j, "compact_revision", r.compact_revision);
  return j;
}

json error_json(Error e) {
  const std::string message(error_message(e));
  return {{"code", grpc_code(e)}, {"error", message}, {"message", message}};
}

json Gateway::call(const std::string& path, const json& body) {
  CURL* curl = curl_easy_init();
  std::string reply;
  const std::string url = endpoint_ + path;
  const std::string data = body.dump();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, data.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 10'000L);
  const CURLcode rc = curl_easy_perform(curl);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) return {{"curl_error", curl_easy_strerror(rc)}};
  json j = json::parse(reply, nullptr, false);
  if (j.is_discarded()) return {{"unparsed_reply", reply}};
  if (j.contains("result")) j = j["result"];
  strip_identity(j);
  return j;
}

json Gateway::watch(const WatchRequest& request, std::int64_t until_revision, int quiet_ms) {
  WatchStream stream;
  stream.until_revision = until_revision;
  CURL* curl = curl_easy_init();
  const std::string url = endpoint_ + "/v3/watch";
  const std::string data = json{{"create_request", to_json(request)}}.dump();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, data.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_watch_data);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &stream);
  // The stream never ends by itself: a watch that expects nothing more
  // stops after quiet_ms.
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(until_revision > 0 ? 5000 : quiet_ms));
  curl_easy_perform(curl);
  curl_easy_cleanup(curl);
  json out = {{"events", json::array()}};
  for (const auto& m : stream.messages) {
    const json& result = m.contains("result") ? m["result"] : m;
    if (m.contains("error")) out["error"] = m["error"];
    for (const auto& e : result.value("events", json::array())) out["events"].push_back(e);
    if (result.value("canceled", false)) out["canceled"] = true;
    if (result.contains("compact_revision")) out["compact_revision"] = result["compact_revision"];
  }
  return out;
}

}  // namespace zksim::etcd::test
