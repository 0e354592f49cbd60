#include "run_record.h"

#include <cstring>

namespace zksim::scenarios::detail {

namespace {

class Writer {
 public:
  template <class T>
  void pod(T v) {
    out_.append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void text(std::string_view s) {
    pod(static_cast<std::uint32_t>(s.size()));
    out_.append(s);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <class T>
  T pod() {
    T v{};
    std::memcpy(&v, in_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string text() {
    const auto n = pod<std::uint32_t>();
    std::string s(in_.substr(at_, n));
    at_ += n;
    return s;
  }

 private:
  std::string_view in_;
  std::size_t at_ = 0;
};

}  // namespace

std::string encode(const RunRecord& r) {
  Writer w;
  w.pod(static_cast<std::uint32_t>(r.violations.size()));
  for (const Violation& v : r.violations) {
    w.text(v.property);
    w.text(std::string_view(v.message).substr(0, kMaxMessageBytes));
    w.pod(static_cast<std::uint32_t>(v.clients.size()));
    for (int c : v.clients) w.pod(c);
    w.pod(v.time);
  }
  w.pod(static_cast<std::uint32_t>(r.probes.size()));
  for (const auto& [name, count] : r.probes) {
    w.text(name);
    w.pod(count);
  }
  w.pod(r.wakeups);
  w.pod(r.wakeups_without_progress);
  w.pod(r.granted_while_suspended);
  w.pod(r.lost_in_transit);
  w.pod(r.decisions);
  w.pod(r.completed_ops);
  w.pod(r.struck);
  w.pod(r.armed);
  w.pod(static_cast<std::uint32_t>(r.trail.size()));
  for (const auto& [choice, n] : r.trail) {
    w.pod(choice);
    w.pod(n);
  }
  return w.take();
}

RunRecord decode(std::string_view bytes) {
  Reader in(bytes);
  RunRecord r;
  r.violations.resize(in.pod<std::uint32_t>());
  for (Violation& v : r.violations) {
    v.property = in.text();
    v.message = in.text();
    v.clients.resize(in.pod<std::uint32_t>());
    for (int& c : v.clients) c = in.pod<int>();
    v.time = in.pod<TimeMs>();
  }
  for (auto n = in.pod<std::uint32_t>(); n > 0; --n) {
    std::string name = in.text();
    r.probes[std::move(name)] = in.pod<int>();
  }
  r.wakeups = in.pod<int>();
  r.wakeups_without_progress = in.pod<int>();
  r.granted_while_suspended = in.pod<int>();
  r.lost_in_transit = in.pod<int>();
  r.decisions = in.pod<std::int64_t>();
  r.completed_ops = in.pod<int>();
  r.struck = in.pod<std::array<int, kFaultClasses>>();
  r.armed = in.pod<std::array<bool, kFaultClasses>>();
  r.trail.resize(in.pod<std::uint32_t>());
  for (auto& [choice, n] : r.trail) {
    choice = in.pod<std::uint32_t>();
    n = in.pod<std::uint32_t>();
  }
  return r;
}

}  // namespace zksim::scenarios::detail
