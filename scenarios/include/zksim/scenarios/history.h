// What happened in a run, as the clients saw it: every recipe call recorded
// as invoke → ok / fail / info (Jepsen's vocabulary; info: the outcome is
// unknown, as after a connection loss), and what clients were told outside
// any call (a holder suspended or lost, a crash). Checkers read this.
//
//   History h;
//   auto op = h.invoke(/*client=*/2, "acquire", now);
//   h.ok(op, later, grant.node, grant.fence);
#pragma once

#include "zksim/error.h"
#include "zksim/types.h"

#include <cstdint>
#include <string>
#include <vector>

namespace zksim::scenarios {

enum class Outcome : std::uint8_t { Pending, Ok, Fail, Info };
const char* outcome_name(Outcome o);

struct Op {
  int client = -1;
  std::string f;             // what was called: "acquire", "release", "put", ...
  TimeMs invoked = 0;
  TimeMs completed = -1;     // -1 while pending
  Outcome outcome = Outcome::Pending;
  Error error = Error::Ok;
  std::string value;         // a node path, an item's data, ...
  std::int64_t fence = 0;    // a grant's fencing token, where there is one
  // Recording order of the invoke and of the completion: at equal times,
  // what happened first.
  std::uint64_t invoke_seq = 0, complete_seq = 0;
};

struct Note {
  int client = -1;
  TimeMs time = 0;
  std::string what;          // "suspended", "reconnected", "lost", "crashed"
  std::uint64_t seq = 0;     // recording order, as Op's
};

class History {
 public:
  // Room for kInitialOps ops from the start: a run records about that many,
  // and growing the list from empty cost allocations big enough to make the
  // allocator sweep its free lists each time.
  History() { ops_.reserve(kInitialOps); }
  static constexpr std::size_t kInitialOps = 128;

  std::size_t invoke(int client, std::string f, TimeMs now, std::string value = {});
  void ok(std::size_t op, TimeMs now, std::string value = {}, std::int64_t fence = 0);
  void fail(std::size_t op, TimeMs now, Error e);
  // The outcome is unknown (e.g. ConnectionLoss on a write); `value`, if
  // given, names what it may have done (e.g. the item a take may have
  // removed).
  void info(std::size_t op, TimeMs now, Error e, std::string value = {});
  void note(int client, TimeMs now, std::string what);

  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<Note>& notes() const { return notes_; }
  // One line per op and note, in time order.
  std::string render() const;

 private:
  Op& complete(std::size_t op, TimeMs now, Outcome outcome, Error e);
  std::vector<Op> ops_;
  std::vector<Note> notes_;
  std::uint64_t next_seq_ = 1;
};

}  // namespace zksim::scenarios
