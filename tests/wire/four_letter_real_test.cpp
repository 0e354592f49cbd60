// The four-letter words of `zksim serve` next to Debian's 3.8 server's:
// both servers get the same two C-client sessions doing the same requests,
// then each word is asked of both and the replies compared, with what
// cannot be equal blanked (the version's build, latencies, ports, session
// ids, the clients' xids, times, the server-wide packet counts, which the
// real server's readiness probes raise; envi's values but the version,
// conf's data directories) and the real server's hash orders sorted.
#include "serve_thread.h"
#include "zk_server.h"

#include <gtest/gtest.h>
#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <regex>
#include <sstream>
#include <vector>

namespace zksim::wire::test {
namespace {

struct Connected {
  std::mutex mu;
  std::condition_variable cv;
  bool up = false;
};

void on_event(zhandle_t*, int type, int state, const char*, void* ctx) {
  auto* c = static_cast<Connected*>(ctx);
  std::lock_guard<std::mutex> lock(c->mu);
  if (type == ZOO_SESSION_EVENT && state == ZOO_CONNECTED_STATE) c->up = true;
  c->cv.notify_all();
}

void noop_watcher(zhandle_t*, int, int, const char*, void*) {}

// A bound on a wait that ends as soon as what it waits for happens (a
// connection, a reply): one that long means the server is stuck, on any
// machine.
constexpr int kReplyWaitMs = 60'000;
constexpr int kSessionMs = 4000;

zhandle_t* connect(const std::string& hosts, Connected& c) {
  zhandle_t* zh = zookeeper_init(hosts.c_str(), on_event, kSessionMs, nullptr, &c, 0);
  std::unique_lock<std::mutex> lock(c.mu);
  EXPECT_TRUE(c.cv.wait_for(lock, std::chrono::milliseconds(kReplyWaitMs), [&] { return c.up; }));
  return zh;
}

// The same requests on either server; the handles stay open while the words are asked.
struct Sessions {
  Connected ca, cb;
  zhandle_t* a = nullptr;
  zhandle_t* b = nullptr;
  explicit Sessions(const std::string& hosts) {
    a = connect(hosts, ca);
    b = connect(hosts, cb);
    char name[64];
    ::Stat st;
    EXPECT_EQ(zoo_create(a, "/a", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, name, sizeof name), ZOK);
    EXPECT_EQ(zoo_create(a, "/a/b", "", 0, &ZOO_OPEN_ACL_UNSAFE, ZOO_PERSISTENT, name, sizeof name), ZOK);
    EXPECT_EQ(zoo_create(a, "/e", "xy", 2, &ZOO_OPEN_ACL_UNSAFE, ZOO_EPHEMERAL, name, sizeof name), ZOK);
    char buf[8];
    int len = sizeof buf;
    EXPECT_EQ(zoo_wget(a, "/a", noop_watcher, nullptr, buf, &len, &st), ZOK);
    String_vector kids;
    EXPECT_EQ(zoo_wget_children(a, "/a", noop_watcher, nullptr, &kids), ZOK);
    deallocate_String_vector(&kids);
    EXPECT_EQ(zoo_wexists(b, "/nope", noop_watcher, nullptr, &st), ZNONODE);
    len = sizeof buf;
    EXPECT_EQ(zoo_wget(b, "/a/b", noop_watcher, nullptr, buf, &len, &st), ZOK);
  }
  ~Sessions() {
    zookeeper_close(a);
    zookeeper_close(b);
  }
};

// dump without what depends on when each server last heard from each
// client, nor its hash orders: each expiry queue's count of elements, each
// bucket line checked for its form ("N expire at <java.util.Date>:") and
// replaced by the count of elements the buckets hold (the real server
// keeps emptied buckets a while, and puts sessions heard from a few ms
// apart in different ones), each section's lines sorted.
std::string dump_shape(const std::string& text) {
  static const std::regex sets(R"((Session|Connections) Sets \(\d+\)/\((\d+)\):)");
  static const std::regex bucket(R"((\d+) expire at [A-Z][a-z]{2} [A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d [A-Z]+ \d{4}:)");
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  std::size_t i = 0;
  // The tab-indented lines from lines[i] on.
  auto indented = [&] {
    std::vector<std::string> got;
    while (i < lines.size() && lines[i].starts_with("\t")) got.push_back(lines[i++]);
    return got;
  };
  auto sorted_lines = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    std::string s;
    for (const std::string& l : v) s += l + "\n";
    return s;
  };
  std::string out;
  std::smatch m;
  while (i < lines.size()) {
    const std::string line = lines[i++];
    if (std::regex_match(line, m, sets)) {
      out += m[1].str() + " Sets of " + m[2].str() + "\n";
      long held = 0;
      std::vector<std::string> elements;
      while (i < lines.size() && std::regex_match(lines[i], m, bucket)) {
        held += std::stol(m[1].str());
        ++i;
        for (std::string& e : indented()) elements.push_back(std::move(e));
      }
      out += "(buckets hold " + std::to_string(held) + ")\n" + sorted_lines(std::move(elements));
    } else if (line.starts_with("Sessions with Ephemerals")) {
      out += line + "\n";
      std::vector<std::string> owners;
      while (i < lines.size() && lines[i].starts_with("0x")) {
        std::string owner = lines[i++] + "\n";
        owners.push_back(owner + sorted_lines(indented()));
      }
      std::sort(owners.begin(), owners.end());
      for (const std::string& o : owners) out += o;
    } else {
      out += line + "\n";
    }
  }
  return out;
}

// What differs between any two servers, blanked; connection lines sorted.
std::string blanked(const std::string& word, std::string text) {
  static const std::vector<std::pair<std::regex, std::string>> rules = {
      {std::regex(R"(3\.8\.0-[^\n\t]*built on [^\n]*)"), "3.8.0-V"},
      {std::regex(R"(Latency min/avg/max: [^\n]*)"), "Latency min/avg/max: L"},
      {std::regex(R"((Received|Sent): \d+)"), "$1: N"},
      {std::regex(R"(zk_(packets_sent|packets_received|uptime|avg_latency|min_latency|max_latency)\t[^\n]*)"),
       "zk_$1\tN"},
      {std::regex(R"(/127\.0\.0\.1:\d+)"), "/127.0.0.1:P"},
      {std::regex(R"(sid=0x[0-9a-f]+)"), "sid=S"},
      // The C client numbers its requests from the clock.
      {std::regex(R"(lcxid=0x[0-9a-f]+)"), "lcxid=X"},
      {std::regex(R"((est|lresp|llat|minlat|avglat|maxlat)=\d+)"), "$1=T"},
  };
  for (const auto& [re, with] : rules) text = std::regex_replace(text, re, with);
  if (word == "envi") {
    // The keys, in order; of the values, the version's (blanked above).
    static const std::regex value(R"(\n([a-z.]+)=(?!3\.8\.0-V)[^\n]*)");
    return std::regex_replace(text, value, "\n$1=");
  }
  if (word == "conf") {
    // Where each server keeps its data; the rest must agree.
    static const std::regex dirs(R"(\n(clientPort|dataDir|dataDirSize|dataLogDir|dataLogSize)=[^\n]*)");
    return std::regex_replace("\n" + text, dirs, "\n$1=").substr(1);
  }
  if (word == "dump") {
    static const std::regex session(R"(0x[0-9a-f]{6,})");
    return dump_shape(std::regex_replace(text, session, "0xS"));
  }
  if (word == "mntr") {
    // Only the keys zksim serve reports (the rest is the metrics provider's).
    std::istringstream in(text);
    std::string kept;
    for (std::string line; std::getline(in, line);) {
      static const std::vector<std::string> left_out = {"zk_max_file_descriptor_count",
                                                        "zk_open_file_descriptor_count"};
      if (std::find(left_out.begin(), left_out.end(), line.substr(0, line.find('\t'))) != left_out.end()) continue;
      kept += line + "\n";
      if (line.starts_with("zk_non_mtls_local_conn_count")) break;
    }
    return kept;
  }
  if (word == "cons" || word == "stat") {
    // The real server lists connections in a hash set's order.
    std::istringstream in(text);
    std::vector<std::string> lines;
    std::string head, tail;
    bool in_list = word == "cons";
    for (std::string line; std::getline(in, line);) {
      if (line.starts_with(" /")) {
        lines.push_back(line);
      } else if (lines.empty() && !in_list) {
        head += line + "\n";
      } else {
        tail += line + "\n";
      }
    }
    std::sort(lines.begin(), lines.end());
    std::string joined;
    for (const std::string& l : lines) joined += l + "\n";
    return head + joined + tail;
  }
  return text;
}

TEST(FourLetterOnTheRealServer, RepliesMatchAfterTheSameSessions) {
  zoo_set_debug_level(static_cast<ZooLogLevel>(0));
  zksim::test::ZkServer real;
  ASSERT_TRUE(real.start()) << real.error();
  ServeThread ours;
  ASSERT_NE(ours.port(), 0);
  Sessions on_real(real.hosts());
  Sessions on_ours(ours.hosts());
  for (const char* word : {"ruok", "isro", "srvr", "stat", "cons", "wchs", "mntr", "envi", "conf", "dump"}) {
    // Both close the connection once they answered: the read ends there.
    const std::string theirs = real.four_letter(word, kReplyWaitMs);
    const std::string mine = ask_tcp(ours.port(), word, kReplyWaitMs);
    EXPECT_EQ(blanked(word, mine), blanked(word, theirs)) << word << "\n--- zksim serve:\n"
                                                          << mine << "\n--- real:\n"
                                                          << theirs;
  }
  // What dump's comparison rests on: both sessions, a's ephemeral, their
  // connections and the asker's.
  EXPECT_EQ(blanked("dump", ask_tcp(ours.port(), "dump", kReplyWaitMs)),
            "SessionTracker dump:\nSession Sets of 2\n(buckets hold 2)\n\t0xS\n\t0xS\nephemeral nodes dump:\n"
            "Sessions with Ephemerals (1):\n0xS:\n\t/e\nConnections dump:\nConnections Sets of 3\n(buckets hold 3)\n"
            "\tip: /127.0.0.1:P sessionId: 0x0\n\tip: /127.0.0.1:P sessionId: 0xS\n\tip: /127.0.0.1:P sessionId: 0xS\n");
}

}  // namespace
}  // namespace zksim::wire::test
