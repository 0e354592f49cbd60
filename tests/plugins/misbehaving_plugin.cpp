// A plugin whose recipes misbehave on purpose, as a user's recipe might:
// zksim's own lock, which in some runs crashes the process (a segmentation
// fault, an abort, an exception let escape, an exit) or leaks memory at
// every grant. The runs that crash are those where client c1 is granted
// the lock at an odd millisecond of simulated time, so some runs of a
// campaign crash and others do not, and a crashing run crashes again when
// replayed.
#include "zksim/recipes/lock.h"
#include "zksim/scenarios/plugin.h"

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace {

using zksim::Client;
using zksim::Result;
using zksim::Task;
using zksim::TimeMs;
using zksim::recipes::Grant;

enum class Misdeed { Segv, Abort, Throw, Exit, Leak };

class MisbehavingLock {
 public:
  MisbehavingLock(Client& zk, std::string dir, std::string id, Misdeed misdeed)
      : zk_(zk), lock_(zk, std::move(dir)), id_(std::move(id)), misdeed_(misdeed) {}
  Task<Result<Grant>> acquire(TimeMs timeout_ms) {
    Result<Grant> g = co_await lock_.acquire(timeout_ms);
    if (g && misdeed_ == Misdeed::Leak) {
      // 2 MB a grant, written so that it is resident, never freed.
      constexpr std::size_t kBytes = 2u << 20;
      char* lost = static_cast<char*>(std::malloc(kBytes));
      if (lost) std::memset(lost, 1, kBytes);
    } else if (g && id_ == "c1" && zk_.now() % 2 == 1) {
      misbehave();
    }
    co_return g;
  }
  Task<Result<void>> release() { return lock_.release(); }
  bool holds() const { return lock_.holds(); }

 private:
  void misbehave() {
    switch (misdeed_) {
      case Misdeed::Segv:
        std::raise(SIGSEGV);  // as a stray pointer's write would (raised, so the sanitizers see no UB first)
        break;
      case Misdeed::Abort:
        std::abort();
      case Misdeed::Throw:
        throw std::runtime_error("the recipe gave up");
      case Misdeed::Exit:
        std::_Exit(7);
      case Misdeed::Leak:
        break;
    }
  }
  Client& zk_;
  zksim::recipes::Lock lock_;
  std::string id_;
  Misdeed misdeed_;
};

zksim::scenarios::Recipe misbehaving(const char* name, const char* summary, Misdeed misdeed) {
  using namespace zksim::scenarios;
  Recipe r;
  r.name = name;
  r.summary = summary;
  r.family = RecipeFamily::Lock;
  r.make_lock = [misdeed](const HandleContext& c) { return exclusive<MisbehavingLock>(c.zk, c.dir, c.id, misdeed); };
  return r;
}

std::vector<zksim::scenarios::Recipe> recipes() {
  return {misbehaving("misbehaving/segv-lock", "dies of SIGSEGV in some grants", Misdeed::Segv),
          misbehaving("misbehaving/abort-lock", "aborts in some grants", Misdeed::Abort),
          misbehaving("misbehaving/throw-lock", "lets an exception escape in some grants", Misdeed::Throw),
          misbehaving("misbehaving/exit-lock", "ends the process with status 7 in some grants", Misdeed::Exit),
          misbehaving("misbehaving/leak-lock", "leaks 2 MB at every grant", Misdeed::Leak)};
}

}  // namespace

ZKSIM_PLUGIN("misbehaving", recipes)
