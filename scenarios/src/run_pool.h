// Runs made in child processes, so that a recipe that crashes (a signal, an
// abort, an exception it lets escape, std::terminate, exit) or leaks memory
// ends one run with a verdict, never the process that asked for it.
//
//   RunPool pool(2, [&](std::string_view request) { return answer_to(request); });
//   pool.submit(7, "run 7");
//   RunPool::Answer a = pool.next();   // a.id == 7; a.crash set if the run died
//
// A child is forked when it is first needed, so the body sees every object
// that existed at that moment (the campaigns it runs); the caller keeps them
// alive and unchanged while the pool lives. Each child answers its requests
// in order; a pool of several spreads requests over its children and gives
// answers as they come. A child that dies in a request is replaced, and
// what it had not answered is sent again:
// - it died by its own doing (a fatal signal it raised, which its handler
//   reports with the request it was making and the exception's text if one
//   escaped): that request's answer is the crash;
// - it died without a word (SIGKILL, an exit() in the recipe): the request
//   is made once more, alone, in a new child; if that dies too, the answer
//   is the crash; if not, something outside killed it and next() throws
//   ExternalDeath.
// A child whose resident memory grew by more than Limits::recycle_growth_bytes
// since it started (a recipe that leaks) is replaced between two requests,
// and the answer before says so. Where no sanitizer
// needs the address space, a child's address space is capped
// (Limits::address_space_bytes), so that a recipe that allocates without
// end gets std::bad_alloc, which ends its run as a crash, instead of taking
// the machine's memory.
//
// Wall-clock time and process ids never reach an answer's bytes: answers
// depend only on the requests, so results are the same for any number of
// children.
#pragma once

#include "zksim/decision.h"

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace zksim::scenarios::detail {

struct Limits {
  std::uint64_t recycle_growth_bytes = 256ull << 20;
  std::uint64_t address_space_bytes = 4ull << 30;  // above the parent's own at the fork
};

// A child died in a request that does not kill a child made to run it again.
struct ExternalDeath : std::runtime_error {
  ExternalDeath(std::uint64_t request, const std::string& death)
      : std::runtime_error(death), id(request) {}
  std::uint64_t id;  // the request it was making; what() is how it died ("SIGKILL")
};

class RunPool {
 public:
  // Makes the answer's bytes for one request's, in a child.
  using Body = std::function<std::string(std::string_view request)>;
  // children >= 1; `window`: requests sent to a child before it answers
  // (more keeps it busy; 1 for requests that depend on the last answer).
  RunPool(int children, Body body, Limits limits = {}, int window = 32);
  ~RunPool();
  RunPool(const RunPool&) = delete;
  RunPool& operator=(const RunPool&) = delete;

  struct Answer {
    std::uint64_t id = 0;
    std::string bytes;                 // the body's answer; empty when it crashed
    std::optional<std::string> crash;  // how its child died: "SIGSEGV", "exception std::bad_alloc: ..."
    // Set when its child was replaced after it, having grown this many
    // bytes since it started (the recipe leaks, most likely).
    std::uint64_t recycled_growth = 0;
  };
  void submit(std::uint64_t id, std::string request);
  // Blocks until a submitted request is answered. REQUIRES: pending() > 0.
  Answer next();
  // Requests submitted whose answer next() has not given yet.
  std::size_t pending() const { return pending_; }

 private:
  struct Request {
    std::uint64_t id;
    std::string bytes;
  };
  struct Child {
    pid_t pid = -1;
    int to = -1, from = -1;          // request pipe (write end), answer pipe (read end)
    std::deque<Request> sent;        // unanswered, in order
    std::string buffer;              // answer bytes read so far
    // Making, alone, the request its predecessor died in without a word,
    // and how that one died.
    std::optional<std::uint64_t> suspect;
    std::string suspect_death;
    bool said_crash = false;         // its crash handler reported the request it died in
  };
  void start(Child& c);
  void send(Child& c, Request r);
  void feed();
  // Reads what `c` wrote; true when it ended (its pipe closed).
  bool read_from(Child& c);
  // Takes the complete frames of `c`'s buffer.
  void take_frames(Child& c);
  // After `c`'s pipe closed: reaps it and sends again what it left.
  void ended(Child& c);
  void stop(Child& c);

  Body body_;
  Limits limits_;
  int window_;
  std::vector<Child> children_;
  std::deque<Request> queued_;       // not sent yet
  std::deque<Answer> answered_;      // answered, not taken yet
  std::size_t pending_ = 0;
};

// A list of decisions a child records into memory it shares with its
// parent, so that the parent has them even when the child dies in the run
// that made them: the decisions up to a crash replay to that crash. Made
// before the child (the mapping is what the fork shares).
class DecisionTape {
 public:
  explicit DecisionTape(std::size_t capacity = std::size_t{1} << 26);
  ~DecisionTape();
  DecisionTape(const DecisionTape&) = delete;
  DecisionTape& operator=(const DecisionTape&) = delete;
  // In the child: a source that draws from `inner` and writes each choice.
  class Recorder;
  // In the parent, after the child answered or died: the choices recorded,
  // trailing zeros trimmed (a replay pads with 0).
  std::vector<std::uint32_t> recorded() const;

 private:
  std::uint32_t* words_ = nullptr;  // [0]: the count; then the choices
  std::size_t capacity_;
};

class DecisionTape::Recorder final : public DecisionSource {
 public:
  Recorder(DecisionSource& inner, DecisionTape& tape) : inner_(inner), tape_(tape) { tape_.words_[0] = 0; }

 protected:
  std::uint32_t choose(std::uint32_t n) override { return keep(inner_.pick(n)); }
  std::uint32_t choose_for(std::uint32_t n, int actor) override { return keep(inner_.pick_for(n, actor)); }

 private:
  std::uint32_t keep(std::uint32_t c) {
    std::uint32_t& count = tape_.words_[0];
    if (count < tape_.capacity_) tape_.words_[1 + count++] = c;
    return c;
  }
  DecisionSource& inner_;
  DecisionTape& tape_;
};

// Runs `body` on `request` in a child of its own and waits for it (a pool of
// one, for a single run that may crash: a replay).
RunPool::Answer run_isolated(const RunPool::Body& body, std::string request, Limits limits = {});

}  // namespace zksim::scenarios::detail
