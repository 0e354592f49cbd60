#include "real_clients.h"

#include "zksim/lease/locks.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <hiredis/hiredis.h>

#include <algorithm>
#include <cassert>

namespace zksim::lease::test {

using etcd::test::json;
using etcd::test::to_json;
using std::chrono::milliseconds;

namespace {

// A task suspended on a Waiter until the loop resumes it.
struct Suspend {
  explicit Suspend(std::shared_ptr<Loop::Waiter> waiter) : w(std::move(waiter)) {}
  Suspend(const Suspend&) = delete;
  std::shared_ptr<Loop::Waiter> w;
  ~Suspend() { w->handle = {}; }
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) noexcept { w->handle = h; }
  void await_resume() const noexcept {}
};

}  // namespace

// --- Loop ---

struct Loop::Stream {
  std::string url;
  std::string body;  // curl reads it from here while the transfer lasts
  std::function<bool(std::string_view)> on_line;
  std::string buffer;  // the start of a line still to come
  bool stopped = false;
  std::shared_ptr<Waiter> waiter = std::make_shared<Waiter>();
  int task = -1;
};

Loop::Loop() : start_(Clock::now()), multi_(curl_multi_init()) {}

Loop::~Loop() {
  tasks_.clear();
  for (auto& [easy, stream] : streams_) {
    curl_multi_remove_handle(multi_, easy);
    curl_easy_cleanup(easy);
  }
  curl_multi_cleanup(multi_);
}

TimeMs Loop::now() const {
  return std::chrono::duration_cast<milliseconds>(Clock::now() - start_).count();
}

TimeMs Loop::at_wall_ms(TimeMs wall_ms) const {
  using std::chrono::microseconds;
  const std::int64_t loop_us = std::chrono::duration_cast<microseconds>(Clock::now() - start_).count();
  const std::int64_t wall_us =
      std::chrono::duration_cast<microseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  const std::int64_t us = wall_ms * 1000 - wall_us + loop_us;
  return us >= 0 ? us / 1000 : -((999 - us) / 1000);
}

void Loop::spawn(RealProcess& p, Task<> task, bool helper) {
  auto w = std::make_shared<Waiter>();
  w->handle = task.handle();
  tasks_.push_back({std::move(task), &p, helper});
  wake_at(Clock::now(), std::move(w), static_cast<int>(tasks_.size()) - 1);
}

void Loop::wake_at(Clock::time_point at, std::shared_ptr<Waiter> waiter, int task) {
  timers_.push({at, next_seq_++, std::move(waiter), task});
}

void Loop::fire(Timer t) {
  const Spawned& s = tasks_[t.task];
  if (const Clock::time_point until = s.process->held_until(s.helper); until > Clock::now()) {
    wake_at(until, std::move(t.waiter), t.task);
    return;
  }
  current_ = t.task;
  if (auto h = std::exchange(t.waiter->handle, {})) h.resume();
  current_ = -1;
}

bool Loop::run(TimeMs limit_ms) {
  const Clock::time_point deadline = start_ + milliseconds(limit_ms);
  const auto all_done = [this] {
    return std::ranges::all_of(tasks_, [](const Spawned& t) { return t.helper || t.task.done(); });
  };
  while (!all_done()) {
    const Clock::time_point now = Clock::now();
    if (now >= deadline) return false;
    if (!timers_.empty() && timers_.top().at <= now) {
      Timer t = timers_.top();
      timers_.pop();
      fire(std::move(t));
      continue;
    }
    // Nothing due: wait for the next timer, a stream's data or an input.
    const Clock::time_point next = timers_.empty() ? deadline : std::min(deadline, timers_.top().at);
    poll_io(static_cast<int>(std::chrono::ceil<milliseconds>(next - now).count()));
  }
  return true;
}

void Loop::poll_io(int timeout_ms) {
  std::erase_if(inputs_, [](const std::weak_ptr<Input>& i) { return i.expired(); });
  std::vector<std::shared_ptr<Input>> inputs;
  std::vector<curl_waitfd> fds;
  for (const std::weak_ptr<Input>& i : inputs_) {
    inputs.push_back(i.lock());
    fds.push_back({.fd = inputs.back()->fd, .events = CURL_WAIT_POLLIN, .revents = 0});
  }
  curl_multi_poll(multi_, fds.data(), static_cast<unsigned>(fds.size()), timeout_ms, nullptr);
  int running = 0;
  curl_multi_perform(multi_, &running);
  reap_streams();
  for (std::size_t i = 0; i < fds.size(); ++i) {
    if (fds[i].revents & CURL_WAIT_POLLIN) inputs[i]->on_input();
  }
}

void Loop::poll(std::weak_ptr<Input> input) { inputs_.push_back(std::move(input)); }

Task<> Loop::wait(Wakeup& w, TimeMs timeout_ms) {
  assert(current_ >= 0);
  w.waiter = std::make_shared<Waiter>();
  w.task = current_;
  wake_at(Clock::now() + milliseconds(timeout_ms), w.waiter, current_);
  co_await Suspend(w.waiter);
  w.waiter.reset();
}

void Loop::wake(Wakeup& w) {
  if (w.waiter) wake_at(Clock::now(), std::exchange(w.waiter, nullptr), w.task);
}

Task<> Loop::sleep(TimeMs ms) {
  assert(current_ >= 0);
  auto w = std::make_shared<Waiter>();
  wake_at(Clock::now() + milliseconds(ms), w, current_);
  co_await Suspend(w);
}

std::size_t Loop::on_stream_data(char* data, std::size_t size, std::size_t n, void* p) {
  Stream& s = *static_cast<Stream*>(p);
  s.buffer.append(data, size * n);
  for (auto nl = s.buffer.find('\n'); nl != std::string::npos; nl = s.buffer.find('\n')) {
    const std::string line = s.buffer.substr(0, nl);
    s.buffer.erase(0, nl + 1);
    if (!s.on_line(line)) {
      s.stopped = true;
      return 0;  // curl ends the transfer
    }
  }
  return size * n;
}

Task<bool> Loop::stream(std::string url, std::string body, std::function<bool(std::string_view)> on_line) {
  assert(current_ >= 0);
  auto s = std::make_shared<Stream>();
  s->url = std::move(url);
  s->body = std::move(body);
  s->on_line = std::move(on_line);
  s->task = current_;
  CURL* easy = curl_easy_init();
  curl_easy_setopt(easy, CURLOPT_URL, s->url.c_str());
  curl_easy_setopt(easy, CURLOPT_POSTFIELDS, s->body.c_str());
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_stream_data);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, s.get());
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, 2000L);
  curl_multi_add_handle(multi_, easy);
  streams_[easy] = s;
  co_await Suspend(s->waiter);
  co_return s->stopped;
}

void Loop::reap_streams() {
  int left = 0;
  while (CURLMsg* m = curl_multi_info_read(multi_, &left)) {
    if (m->msg != CURLMSG_DONE) continue;
    CURL* easy = m->easy_handle;  // (m is gone once the handle is removed)
    auto it = streams_.find(easy);
    const std::shared_ptr<Stream> s = std::move(it->second);
    streams_.erase(it);
    curl_multi_remove_handle(multi_, easy);
    curl_easy_cleanup(easy);
    wake_at(Clock::now(), s->waiter, s->task);
  }
}

// --- RealProcess ---

TimeMs RealProcess::clock_ms() const {
  return std::chrono::duration_cast<milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

void RealProcess::note(std::string_view text) {
  trace_.push_back(fmt::format("{:>6} {} {}", loop_.now(), name_, text));
}

void RealProcess::pause(TimeMs ms) {
  const TimeMs now = loop_.now();
  paused_until_ = std::max(paused_until_, Loop::Clock::now() + milliseconds(ms));
  pauses_.emplace_back(now, now + ms);
  note(fmt::format("fault: paused for {} ms", ms));
}

void RealProcess::suspend_helpers(TimeMs ms) {
  const TimeMs now = loop_.now();
  helpers_until_ = std::max(helpers_until_, Loop::Clock::now() + milliseconds(ms));
  suspensions_.emplace_back(now, now + ms);
  note(fmt::format("fault: helpers suspended for {} ms", ms));
}

bool RealProcess::cut_off(TimeMs from, TimeMs to) const {
  const auto within = [&](const std::pair<TimeMs, TimeMs>& s) { return s.first <= to && s.second > from; };
  return std::ranges::any_of(pauses_, within) || std::ranges::any_of(suspensions_, within);
}

void RealProcess::lease_until(int node, TimeMs sent, TimeMs deadline, int quorum) {
  if (static_cast<int>(redis_deadlines_.size()) <= node) redis_deadlines_.resize(node + 1, -1);
  redis_deadlines_[node] = std::max(redis_deadlines_[node], deadline);
  const TimeMs now = loop_.now();
  std::vector<TimeMs> ahead;
  for (TimeMs d : redis_deadlines_) {
    if (d >= now) ahead.push_back(d);
  }
  if (static_cast<int>(ahead.size()) < quorum) return;
  std::ranges::sort(ahead, std::greater<>());
  const TimeMs end = ahead[quorum - 1];
  if (!leases_.empty() && leases_.back().end >= now) {
    leases_.back().end = std::max(leases_.back().end, end);
  } else {
    leases_.push_back({sent, end});
  }
}

// --- RealRedis ---

Task<std::optional<redis::Reply>> RealRedis::call(redis::Command command) {
  process_.note(fmt::format("-> redis {}", redis::show(command)));
  if (!connection_) connection_ = std::make_unique<redis::Connection>(port_);
  const TimeMs sent = process_.loop().now();
  redis::Reply reply = connection_->command(command);
  // real_fixture.h: hiredis's own failures are errors starting "hiredis:".
  if (reply.is_error() && reply.text.starts_with("hiredis:")) {
    process_.note(fmt::format("<- (no answer: {})", reply.text));
    connection_.reset();
    co_return std::nullopt;
  }
  process_.heard();
  process_.note(fmt::format("<- {}", reply));
  if (const std::optional<RedisLeaseGrant> g = redis_lease_granted(command, reply)) {
    process_.lease_until(node_, sent, deadline_of(g->key, process_.last_heard() + g->ms), quorum_);
  }
  co_return reply;
}

TimeMs RealRedis::deadline_of(const std::string& key, TimeMs bound) {
  const redis::Reply at = connection_->command({"PEXPIRETIME", key});
  if (at.type != redis::Reply::Type::Integer || at.integer < 0) {
    process_.note(fmt::format("(PEXPIRETIME {}: {}; the lease ends by {} ms)", key, at, bound));
    if (at.is_error() && at.text.starts_with("hiredis:")) connection_.reset();
    return bound;
  }
  const TimeMs end = process_.loop().at_wall_ms(at.integer + 1);
  process_.note(fmt::format("(the server's deadline: {} ms)", end));
  return end;
}

// --- RealSubscriber ---

RealSubscriber::~RealSubscriber() {
  if (context_) redisFree(context_);
}

Task<bool> RealSubscriber::subscribe(std::string channel) {
  process_.note(fmt::format("-> redis subscriber SUBSCRIBE {}", channel));
  if (!context_) {
    const timeval timeout{2, 0};
    context_ = redisConnectWithTimeout("127.0.0.1", port_, timeout);
    if (!context_ || context_->err) {
      drop(context_ ? context_->errstr : "no connection");
      co_return false;
    }
    redisSetTimeout(context_, timeout);
    input_ = std::make_shared<Loop::Input>(Loop::Input{.fd = context_->fd, .on_input = [this] { on_input(); }});
    process_.loop().poll(input_);
  }
  const redis::Command command{"SUBSCRIBE", channel};
  co_return confirmed(command, "subscribe", channel);
}

Task<> RealSubscriber::unsubscribe(std::string channel) {
  process_.note(fmt::format("-> redis subscriber UNSUBSCRIBE {}", channel));
  const redis::Command command{"UNSUBSCRIBE", channel};
  if (context_) confirmed(command, "unsubscribe", channel);
  // Messages that came before the confirmation are not for a later subscription.
  inbox_.erase(channel);
  co_return;
}

Task<std::optional<std::string>> RealSubscriber::next_message(std::string channel, TimeMs timeout_ms) {
  if (inbox_[channel].empty()) co_await process_.loop().wait(waiting_[channel], timeout_ms);
  std::deque<std::string>& box = inbox_[channel];
  if (box.empty()) {
    process_.note(fmt::format("<- (no message on {} within {} ms)", channel, timeout_ms));
    co_return std::nullopt;
  }
  std::string m = std::move(box.front());
  box.pop_front();
  co_return m;
}

bool RealSubscriber::confirmed(const redis::Command& command, std::string_view kind, const std::string& channel) {
  std::vector<const char*> data;
  std::vector<std::size_t> lengths;
  for (const std::string& a : command) {
    data.push_back(a.data());
    lengths.push_back(a.size());
  }
  redisAppendCommandArgv(context_, static_cast<int>(command.size()), data.data(), lengths.data());
  for (;;) {
    void* reply = nullptr;
    if (redisGetReply(context_, &reply) != REDIS_OK) {
      drop(context_->errstr);
      return false;
    }
    if (take(reply, kind, channel)) break;
  }
  process_.heard();
  process_.note(fmt::format("<- redis subscriber {} {}", kind, channel));
  // Messages read with the confirmation: the socket will not signal them.
  take_buffered();
  return true;
}

bool RealSubscriber::take(void* raw, std::string_view kind, const std::string& channel) {
  auto* r = static_cast<redisReply*>(raw);
  const auto text = [r](std::size_t i) {
    const redisReply* e = r->element[i];
    return e->type == REDIS_REPLY_STRING ? std::string(e->str, e->len) : std::string();
  };
  bool match = false;
  if (r->type == REDIS_REPLY_ARRAY && r->elements == 3) {
    const std::string k = text(0);
    const std::string c = text(1);
    if (k == "message") {
      inbox_[c].push_back(text(2));
      process_.note(fmt::format("<- redis message {}: {}", c, text(2)));
      process_.loop().wake(waiting_[c]);
    }
    match = k == kind && c == channel;
  }
  freeReplyObject(r);
  return match;
}

void RealSubscriber::take_buffered() {
  void* reply = nullptr;
  while (context_ && redisGetReplyFromReader(context_, &reply) == REDIS_OK && reply) {
    take(reply, "", "");
    reply = nullptr;
  }
}

void RealSubscriber::on_input() {
  if (redisBufferRead(context_) != REDIS_OK) {
    drop(context_->errstr);
    return;
  }
  take_buffered();
}

void RealSubscriber::drop(std::string_view why) {
  process_.note(fmt::format("<- redis subscriber lost: {}", why));
  if (context_) redisFree(context_);
  context_ = nullptr;
  input_.reset();
}

// --- RealEtcd ---

namespace {

constexpr std::string_view kBase64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string unbase64(std::string_view in) {
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : in) {
    const auto v = kBase64.find(c);
    if (v == std::string_view::npos) break;  // '=' padding
    bits = (bits << 6) | static_cast<std::uint32_t>(v);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xff);
    }
  }
  return out;
}

// The gateway's JSON (gateway.h): int64 as strings, bytes in base64, and
// fields at their default left out.
std::int64_t int64_of(const json& j, const char* name) {
  const auto it = j.find(name);
  return it == j.end() ? 0 : std::stoll(it->get<std::string>());
}
std::string bytes_of(const json& j, const char* name) {
  const auto it = j.find(name);
  return it == j.end() ? std::string() : unbase64(it->get<std::string>());
}
bool bool_of(const json& j, const char* name) { return j.value(name, false); }

etcd::Header header_of(const json& j) { return {.revision = int64_of(j.value("header", json::object()), "revision")}; }

etcd::KeyValue kv_of(const json& j) {
  return {.key = bytes_of(j, "key"), .create_revision = int64_of(j, "create_revision"),
          .mod_revision = int64_of(j, "mod_revision"), .version = int64_of(j, "version"),
          .value = bytes_of(j, "value"), .lease = int64_of(j, "lease")};
}

etcd::RangeResponse range_of(const json& j) {
  etcd::RangeResponse r{.header = header_of(j), .more = bool_of(j, "more"), .count = int64_of(j, "count")};
  for (const json& kv : j.value("kvs", json::array())) r.kvs.push_back(kv_of(kv));
  return r;
}

etcd::PutResponse put_of(const json& j) {
  etcd::PutResponse r{.header = header_of(j)};
  if (j.contains("prev_kv")) r.prev_kv = kv_of(j["prev_kv"]);
  return r;
}

etcd::DeleteRangeResponse delete_of(const json& j) {
  etcd::DeleteRangeResponse r{.header = header_of(j), .deleted = int64_of(j, "deleted")};
  for (const json& kv : j.value("prev_kvs", json::array())) r.prev_kvs.push_back(kv_of(kv));
  return r;
}

etcd::TxnResponse txn_of(const json& j) {
  etcd::TxnResponse r{.header = header_of(j), .succeeded = bool_of(j, "succeeded")};
  for (const json& op : j.value("responses", json::array())) {
    if (op.contains("response_range")) r.responses.emplace_back(range_of(op["response_range"]));
    if (op.contains("response_put")) r.responses.emplace_back(put_of(op["response_put"]));
    if (op.contains("response_delete_range")) r.responses.emplace_back(delete_of(op["response_delete_range"]));
  }
  return r;
}

etcd::LeaseGrantResponse grant_of(const json& j) {
  return {.header = header_of(j), .id = int64_of(j, "ID"), .ttl = int64_of(j, "TTL")};
}
etcd::LeaseRevokeResponse revoke_of(const json& j) { return {.header = header_of(j)}; }
etcd::LeaseKeepAliveResponse keep_alive_of(const json& j) {
  return {.header = header_of(j), .id = int64_of(j, "ID"), .ttl = int64_of(j, "TTL")};
}

// etcd's error with this message, if the model knows it.
std::optional<etcd::Error> error_of(std::string_view message) {
  static constexpr etcd::Error kAll[] = {
#define ZKSIM_ETCD_ERROR_VALUE(name, code, message) etcd::Error::name,
      ZKSIM_ETCD_ERRORS(ZKSIM_ETCD_ERROR_VALUE)
#undef ZKSIM_ETCD_ERROR_VALUE
  };
  for (etcd::Error e : kAll) {
    if (e != etcd::Error::Ok && etcd::error_message(e) == message) return e;
  }
  return std::nullopt;
}

// A reply as the recipe's answer; it must read back as what the server sent.
template <class R>
EtcdClient::Answer<R> answer(const std::optional<json>& reply, R (*read)(const json&)) {
  if (!reply) return std::nullopt;
  std::optional<etcd::Result<R>> out;
  if (reply->contains("code")) {
    const std::optional<etcd::Error> e = error_of(reply->value("message", ""));
    if (!e) return std::nullopt;
    out.emplace(*e);
  } else {
    out.emplace(read(*reply));
  }
  EXPECT_EQ(to_json(*out).dump(), reply->dump()) << "a reply the client reads only in part";
  return out;
}

}  // namespace

std::optional<json> RealEtcd::ask(const std::string& path, const json& body) {
  process_.note(fmt::format("-> etcd {} {}", path, body.dump()));
  json reply = gateway_.call(path, body);
  if (reply.contains("curl_error") || reply.contains("unparsed_reply")) {
    process_.note(fmt::format("<- (no answer: {})", reply.dump()));
    return std::nullopt;
  }
  process_.heard();
  process_.note(fmt::format("<- {}", reply.dump()));
  return reply;
}

void RealEtcd::lease_ended(etcd::LeaseId id, TimeMs at) {
  const auto it = leases_.find(id);
  if (it == leases_.end()) return;
  LeaseSpan& span = process_.leases()[it->second.span];
  span.end = std::min(span.end, at);
}

void RealEtcd::settle_leases() {
  for (const auto& [id, lease] : leases_) {
    if (process_.leases()[lease.span].end != kNever) continue;
    const json r = gateway_.call("/v3/lease/timetolive", {{"ID", std::to_string(id)}});
    process_.note(fmt::format("(after the run) lease {:x}: {}", id, r.dump()));
    if (!r.contains("curl_error") && int64_of(r, "TTL") < 0) lease_ended(id, lease.deadline);
  }
}

Task<EtcdClient::Answer<etcd::RangeResponse>> RealEtcd::range(etcd::RangeRequest request) {
  co_return answer(ask("/v3/kv/range", to_json(request)), range_of);
}

Task<EtcdClient::Answer<etcd::TxnResponse>> RealEtcd::txn(etcd::TxnRequest request) {
  co_return answer(ask("/v3/kv/txn", to_json(request)), txn_of);
}

Task<EtcdClient::Answer<etcd::DeleteRangeResponse>> RealEtcd::delete_range(etcd::DeleteRangeRequest request) {
  co_return answer(ask("/v3/kv/deleterange", to_json(request)), delete_of);
}

Task<EtcdClient::Answer<etcd::LeaseGrantResponse>> RealEtcd::lease_grant(etcd::LeaseGrantRequest request) {
  Answer<etcd::LeaseGrantResponse> r = answer(ask("/v3/lease/grant", to_json(request)), grant_of);
  if (r && *r) {
    const TimeMs now = process_.loop().now();
    leases_[(*r)->id] = {process_.leases().size(), now + (*r)->ttl * 1000};
    process_.leases().push_back({now, kNever});
  }
  co_return r;
}

Task<EtcdClient::Answer<etcd::LeaseRevokeResponse>> RealEtcd::lease_revoke(etcd::LeaseId id) {
  const json body = {{"ID", std::to_string(id)}};
  Answer<etcd::LeaseRevokeResponse> r = answer(ask("/v3/lease/revoke", body), revoke_of);
  if (r && *r) lease_ended(id, process_.loop().now());
  co_return r;
}

Task<std::optional<etcd::LeaseKeepAliveResponse>> RealEtcd::lease_keep_alive(etcd::LeaseId id) {
  const json body = {{"ID", std::to_string(id)}};
  Answer<etcd::LeaseKeepAliveResponse> r = answer(ask("/v3/lease/keepalive", body), keep_alive_of);
  if (!r || !*r) co_return std::nullopt;
  const etcd::LeaseKeepAliveResponse& k = **r;
  if (const auto it = leases_.find(id); it != leases_.end()) {
    if (k.ttl > 0) {
      it->second.deadline = process_.loop().now() + k.ttl * 1000;
    } else {
      lease_ended(id, it->second.deadline);
    }
  }
  co_return k;
}

// A watch stream, as clientv3's waitDelete uses one, rather than polling:
// libcurl's multi interface lets the loop read it while other tasks run,
// and it sees the delete itself, not a later state of the key. The watch
// starts at `from_revision`, so a delete that came before the stream was
// set up is still delivered (as history); a canceled watch (a compacted
// revision) or an error on the stream is a lost stream.
Task<bool> RealEtcd::wait_delete(std::string key, std::int64_t from_revision) {
  const etcd::WatchRequest request{.key = key, .start_revision = from_revision};
  const std::string body = json{{"create_request", to_json(request)}}.dump();
  process_.note(fmt::format("-> etcd watch {}", body));
  // The stream's reader, owned by the stream: it may outlive this frame.
  auto deleted = std::make_shared<bool>(false);
  std::function<bool(std::string_view)> on_line = [deleted, key, from_revision](std::string_view line) {
    const json m = json::parse(line, nullptr, false);
    if (m.is_discarded() || m.contains("error")) return false;
    const json result = m.value("result", json::object());
    if (bool_of(result, "canceled")) return false;
    for (const json& e : result.value("events", json::array())) {
      const json kv = e.value("kv", json::object());
      if (e.value("type", "") == "DELETE" && bytes_of(kv, "key") == key &&
          int64_of(kv, "mod_revision") >= from_revision) {
        *deleted = true;
        return false;
      }
    }
    return true;
  };
  std::string url = endpoint_ + "/v3/watch";
  const bool stopped = co_await process_.loop().stream(std::move(url), body, std::move(on_line));
  if (*deleted) process_.heard();
  process_.note(fmt::format("<- etcd watch {}: {}", key, *deleted ? "deleted" : stopped ? "canceled" : "lost"));
  co_return *deleted;
}

}  // namespace zksim::lease::test
