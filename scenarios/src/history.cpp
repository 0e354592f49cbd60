#include "zksim/scenarios/history.h"

#include <fmt/format.h>

#include <algorithm>

namespace zksim::scenarios {

const char* outcome_name(Outcome o) {
  switch (o) {
    case Outcome::Pending: return "pending";
    case Outcome::Ok: return "ok";
    case Outcome::Fail: return "fail";
    case Outcome::Info: return "info";
  }
  return "?";
}

std::size_t History::invoke(int client, std::string f, TimeMs now, std::string value) {
  ops_.push_back(Op{client, std::move(f), now, -1, Outcome::Pending, Error::Ok, std::move(value)});
  ops_.back().invoke_seq = next_seq_++;
  return ops_.size() - 1;
}

Op& History::complete(std::size_t op, TimeMs now, Outcome outcome, Error e) {
  Op& o = ops_.at(op);
  o.completed = now;
  o.complete_seq = next_seq_++;
  o.outcome = outcome;
  o.error = e;
  return o;
}

void History::ok(std::size_t op, TimeMs now, std::string value, std::int64_t fence) {
  Op& o = complete(op, now, Outcome::Ok, Error::Ok);
  if (!value.empty()) o.value = std::move(value);
  o.fence = fence;
}

void History::fail(std::size_t op, TimeMs now, Error e) { complete(op, now, Outcome::Fail, e); }

void History::info(std::size_t op, TimeMs now, Error e, std::string value) {
  Op& o = complete(op, now, Outcome::Info, e);
  if (!value.empty()) o.value = std::move(value);
}

void History::note(int client, TimeMs now, std::string what) {
  notes_.push_back(Note{client, now, std::move(what), next_seq_++});
}

std::string History::render() const {
  struct Line {
    TimeMs t;
    std::size_t order;
    std::string text;
  };
  std::vector<Line> lines;
  for (const Op& o : ops_) {
    lines.push_back({o.invoked, lines.size(), fmt::format("t={:<6} c{:<3} invoke {} {}", o.invoked, o.client, o.f, o.value)});
    if (o.outcome == Outcome::Pending) continue;
    std::string what = o.outcome == Outcome::Ok ? fmt::format("{}{}", o.value, o.fence ? fmt::format(" fence={}", o.fence) : "")
                                                : std::string(error_name(o.error));
    lines.push_back({o.completed, lines.size(),
                     fmt::format("t={:<6} c{:<3} {} {} {}", o.completed, o.client, outcome_name(o.outcome), o.f, what)});
  }
  for (const Note& n : notes_) {
    lines.push_back({n.time, lines.size(), fmt::format("t={:<6} c{:<3} told {}", n.time, n.client, n.what)});
  }
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.t < b.t; });
  std::string out;
  for (const Line& l : lines) out += l.text + "\n";
  return out;
}

}  // namespace zksim::scenarios
