// The four-letter words, answered as Debian's 3.8 server answers them with
// `4lw.commands.whitelist=ruok,srvr,stat,mntr,cons,wchs,isro,conf,envi,dump`
// (NIOServerCnxn.checkFourLetterWord, the command/ classes; measured, see
// docs/wire.md). What the simulated server has no counterpart for is
// reported as an idle real server reports it: latencies 0 (each request is
// answered within the call that reads it), no outstanding requests, no TLS,
// no data directory, no JVM.
#include "frontend_impl.h"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <map>
#include <set>
#include <string_view>
#include <utility>

namespace zksim::wire {
namespace {

// Version.getFullVersion() of the server being simulated; the "built on"
// part names the simulator instead of a build date.
constexpr std::string_view kVersion = "3.8.0-zksim, built on zksim";

// Every word FourLetterCommands knows (cmd2String), and the ones served.
constexpr std::array<std::string_view, 18> kKnown = {"conf", "cons", "crst", "dirs", "dump", "envi",
                                                     "gtmk", "ruok", "stmk", "srst", "srvr", "stat",
                                                     "wchc", "wchp", "wchs", "mntr", "isro", "hash"};
constexpr std::array<std::string_view, 10> kServed = {"ruok", "srvr", "stat", "mntr", "cons",
                                                      "wchs", "isro", "conf", "envi", "dump"};
// Environment.list's keys after zookeeper.version, in its order.
constexpr std::array<std::string_view, 17> kEnvironmentKeys = {
    "host.name",       "java.version",   "java.vendor",    "java.home", "java.class.path", "java.library.path",
    "java.io.tmpdir",  "java.compiler",  "os.name",        "os.arch",   "os.version",      "user.name",
    "user.home",       "user.dir",       "os.memory.free", "os.memory.max", "os.memory.total"};
// FourLetterCommands.telnetCloseCmd: the bytes telnet sends for ^C.
constexpr std::array<std::uint8_t, 4> kTelnetClose = {0xff, 0xf4, 0xff, 0xfd};

template <std::size_t N>
bool among(const std::array<std::string_view, N>& words, std::string_view w) {
  for (std::string_view k : words) {
    if (k == w) return true;
  }
  return false;
}

// The watches in the server's two watch managers (DataTree.dataWatches and
// childWatches): one entry per session and path in each. A persistent or
// persistent-recursive watch sits in both (DataTree.addWatch).
struct WatchTables {
  std::set<std::pair<SessionId, std::string>> data, child;
};

WatchTables watch_tables(const Server& server) {
  WatchTables t;
  for (SessionId s : server.sessions()) {
    for (const std::string& line : server.watches_of(s)) {
      const std::size_t space = line.find(' ');
      const std::string kind = line.substr(0, space);
      std::string path = line.substr(space + 1);
      if (kind != "child") t.data.emplace(s, path);
      if (kind != "data") t.child.emplace(s, std::move(path));
    }
  }
  return t;
}

// DataTree.approximateDataSize: each node's path length plus data length.
std::int64_t approximate_data_size(const Server& server, const std::string& path) {
  std::int64_t size = static_cast<std::int64_t>(path.size());
  if (auto node = server.node(path)) size += static_cast<std::int64_t>(node->data.size());
  for (const std::string& child : server.children(path)) {
    size += approximate_data_size(server, path == "/" ? "/" + child : path + "/" + child);
  }
  return size;
}

std::string hex(std::int64_t v) { return fmt::format("{:x}", static_cast<std::uint64_t>(v)); }

// java.util.Date.toString of a time in ms since 1970, in UTC (the real
// server prints its JVM's zone): "Sat Nov 28 01:25:44 UTC 2026".
std::string java_date(TimeMs ms) {
  static constexpr std::array<std::string_view, 7> kDays = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static constexpr std::array<std::string_view, 12> kMonths = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::int64_t seconds = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  const std::int64_t days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
  const std::int64_t in_day = seconds - days * 86400;
  // Howard Hinnant's civil_from_days.
  const std::int64_t z = days + 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const std::int64_t weekday = ((days % 7) + 11) % 7;  // 1970-01-01 was a Thursday
  return fmt::format("{} {} {:02} {:02}:{:02}:{:02} UTC {}", kDays[static_cast<std::size_t>(weekday)],
                     kMonths[static_cast<std::size_t>(month - 1)], day, in_day / 3600, in_day / 60 % 60, in_day % 60,
                     year);
}

// ExpiryQueue.roundToNextInterval: the end of the bucket `t` falls in.
TimeMs next_interval(TimeMs t, TimeMs interval) { return (t / interval + 1) * interval; }

// ExpiryQueue.dump: "Sets (buckets)/(elements):", then each bucket, oldest
// first, as "N expire at DATE:" and a tab-indented line per element.
std::string expiry_dump(const std::map<TimeMs, std::vector<std::string>>& buckets) {
  std::size_t elements = 0;
  for (const auto& [at, in] : buckets) elements += in.size();
  std::string s = fmt::format("Sets ({})/({}):\n", buckets.size(), elements);
  for (const auto& [at, in] : buckets) {
    s += fmt::format("{} expire at {}:\n", in.size(), java_date(at));
    for (const std::string& e : in) s += "\t" + e + "\n";
  }
  return s;
}

}  // namespace

std::optional<std::string> Frontend::Impl::four_letter(Connection& asking, ByteView bytes, TimeMs now) {
  const std::string_view word(reinterpret_cast<const char*>(bytes.data()), 4);
  const bool telnet_close = std::memcmp(bytes.data(), kTelnetClose.data(), 4) == 0;
  if (!telnet_close && !among(kKnown, word)) return std::nullopt;
  // checkFourLetterWord counts the word as a packet received before it
  // answers; the answer is counted as sent once written.
  ++counters.received;
  ++asking.stats.received;
  asking.four_letter = true;
  if (telnet_close || !among(kServed, word)) {
    return fmt::format("{} is not executed because it is not in the whitelist.\n",
                       telnet_close ? std::string_view("telnet close") : word);
  }
  if (word == "ruok") return std::string("imok");
  if (word == "isro") return std::string("rw");  // standalone, read-write
  if (word == "envi") {
    // EnvCommand: Environment.list().
    std::string s = fmt::format("Environment:\nzookeeper.version={}\n", kVersion);
    for (std::string_view key : kEnvironmentKeys) {
      const auto it = options.environment.find(std::string(key));
      s += fmt::format("{}={}\n", key, it == options.environment.end() ? "<NA>" : it->second);
    }
    return s;
  }
  if (word == "conf") {
    // ZooKeeperServer.dumpConf of a standalone server. The state is in
    // memory: no data or log directory (empty), of size 0. No limit of
    // connections per address (0, as maxClientCnxns=0 says); the listener's
    // backlog is the system's default (-1).
    const ServerConfig& cfg = server.config();
    return fmt::format(
        "clientPort={}\nsecureClientPort=-1\ndataDir=\ndataDirSize=0\ndataLogDir=\ndataLogSize=0\n"
        "tickTime={}\nmaxClientCnxns=0\nminSessionTimeout={}\nmaxSessionTimeout={}\n"
        "clientPortListenBacklog=-1\nserverId=0\n",
        options.client_port, cfg.tick_ms, cfg.min_session_timeout_ms, cfg.max_session_timeout_ms);
  }
  if (word == "dump") {
    // DumpCommand: the session tracker's expiry queue (buckets of
    // tickTime), DataTree.dumpEphemerals, then NIOServerCnxnFactory's
    // connection expiry queue (buckets of sessionlessCnxnTimeout; a
    // connection is due its session's timeout after it was last heard
    // from, the sessionless timeout before the handshake). Within a
    // bucket, among the sessions with ephemerals and among a session's
    // ephemerals the real server's order is a hash table's; here sessions
    // go by id, paths in byte order, connections in the order they opened.
    std::map<TimeMs, std::vector<std::string>> sessions_due, connections_due;
    for (SessionId s : server.sessions()) {
      if (const auto due = server.deadline(s)) sessions_due[*due].push_back("0x" + hex(s.value));
    }
    std::string s = "SessionTracker dump:\nSession " + expiry_dump(sessions_due) + "ephemeral nodes dump:\n";
    s += fmt::format("Sessions with Ephemerals ({}):\n", had_ephemerals.size());
    for (SessionId owner : had_ephemerals) {
      s += fmt::format("0x{}:\n", hex(owner.value));
      for (const std::string& path : server.ephemerals(owner)) s += "\t" + path + "\n";
    }
    const TimeMs interval = options.sessionless_timeout_ms;
    for (const auto& [id, c] : connections) {
      if (c.closed) continue;
      const TimeMs timeout = c.connected ? server.session_timeout_ms(c.session) : interval;
      connections_due[next_interval(c.last_heard + timeout, interval)].push_back(
          fmt::format("ip: /{} sessionId: 0x{}", c.address(), hex(c.session.value)));
    }
    return s + "Connections dump:\nConnections " + expiry_dump(connections_due);
  }

  std::int64_t alive = 0;
  for (const auto& [id, c] : connections) alive += c.closed ? 0 : 1;
  // DataTree keeps the root under "" and under "/": getNodeCount counts it twice.
  const std::size_t node_count = server.node_count() + 1;
  auto server_stats = [&] {
    return fmt::format(
        "Latency min/avg/max: 0/0.0/0\nReceived: {}\nSent: {}\nConnections: {}\nOutstanding: 0\n"
        "Zxid: 0x{}\nMode: standalone\n",
        counters.received, counters.sent, alive, hex(server.last_zxid().value));
  };
  // ServerCnxn.dumpConnectionInfo. Interest ops: 1 (OP_READ) for a client
  // connection, 0 for the one asking (its selection key is cancelled).
  auto connection_info = [&](const Connection& c, bool brief) {
    std::string s = fmt::format(" /{}[{}](queued=0,recved={},sent={}", c.address(), &c == &asking ? 0 : 1,
                                c.stats.received, c.stats.sent);
    if (!brief && c.session.value != 0) {
      s += fmt::format(",sid=0x{},lop={},est={},to={}", hex(c.session.value), c.stats.last_op, c.opened,
                       server.session_timeout_ms(c.session));
      if (c.stats.last_cxid >= 0) s += fmt::format(",lcxid=0x{}", hex(c.stats.last_cxid));
      s += fmt::format(",lzxid=0x{},lresp={},llat=0,minlat=0,avglat=0,maxlat=0", hex(c.stats.last_zxid),
                       c.stats.last_response);
    }
    return s + ")";
  };

  if (word == "srvr") return fmt::format("Zookeeper version: {}\n{}Node count: {}\n", kVersion, server_stats(), node_count);
  if (word == "stat") {
    std::string s = fmt::format("Zookeeper version: {}\nClients:\n", kVersion);
    for (const auto& [id, c] : connections) {
      if (!c.closed) s += connection_info(c, true) + "\n";
    }
    return s + fmt::format("\n{}Node count: {}\n", server_stats(), node_count);
  }
  if (word == "cons") {
    std::string s;
    for (const auto& [id, c] : connections) {
      if (!c.closed) s += connection_info(c, false) + "\n";
    }
    return s + "\n";
  }
  const WatchTables watches = watch_tables(server);
  if (word == "wchs") {
    // WatchManager.toString of the data watches only (DataTree.dumpWatchesSummary).
    std::set<SessionId> watchers;
    std::set<std::string> paths;
    for (const auto& [s, p] : watches.data) {
      watchers.insert(s);
      paths.insert(p);
    }
    return fmt::format("{} connections watching {} paths\nTotal watches:{}\n", watchers.size(), paths.size(),
                       watches.data.size());
  }
  // mntr: ZooKeeperServer.dumpMonitorValues, then the gauges the server
  // registers with its metrics provider, in the order Debian's server
  // prints them. The file-descriptor gauges (the JVM's) and the provider's
  // counters and summaries are left out.
  std::int64_t ephemerals = 0;
  const std::vector<SessionId> sessions = server.sessions();
  for (SessionId s : sessions) ephemerals += static_cast<std::int64_t>(server.ephemerals(s).size());
  const std::pair<std::string_view, std::string> lines[] = {
      {"version", std::string(kVersion)},
      {"server_state", "standalone"},
      {"ephemerals_count", std::to_string(ephemerals)},
      {"num_alive_connections", std::to_string(alive)},
      {"avg_latency", "0.0"},
      {"outstanding_requests", "0"},
      {"znode_count", std::to_string(node_count)},
      {"global_sessions", std::to_string(sessions.size())},
      {"non_mtls_remote_conn_count", "0"},
      {"last_client_response_size", std::to_string(counters.last_response_size)},
      {"packets_sent", std::to_string(counters.sent)},
      {"packets_received", std::to_string(counters.received)},
      {"max_client_response_size", std::to_string(counters.max_response_size)},
      {"connection_drop_probability", "0.0"},
      {"watch_count", std::to_string(watches.data.size() + watches.child.size())},
      {"auth_failed_count", std::to_string(counters.auth_failed)},
      {"min_latency", "0"},
      {"approximate_data_size", std::to_string(approximate_data_size(server, "/"))},
      {"local_sessions", "0"},
      {"uptime", std::to_string(now - options.origin)},
      {"max_latency", "0"},
      {"outstanding_tls_handshake", "0"},
      {"min_client_response_size", std::to_string(counters.min_response_size)},
      {"non_mtls_local_conn_count", "0"},
  };
  std::string s;
  for (const auto& [key, value] : lines) s += fmt::format("zk_{}\t{}\n", key, value);
  return s;
}

}  // namespace zksim::wire
