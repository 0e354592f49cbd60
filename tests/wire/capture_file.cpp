#include "capture_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace zksim::wire::test {

namespace {

Bytes unhex(const std::string& s) {
  Bytes out;
  for (std::size_t i = 0; i + 1 < s.size(); i += 2) {
    out.push_back(static_cast<std::uint8_t>(std::stoi(s.substr(i, 2), nullptr, 16)));
  }
  return out;
}

}  // namespace

std::int32_t int_at(ByteView b, std::size_t offset) {
  Reader r(b.subspan(offset));
  std::int32_t v = 0;
  r.read_int(v);
  return v;
}

std::string hex(ByteView b) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::uint8_t c : b) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}

Capture load_capture(const std::string& file) {
  Capture c;
  c.name = file;
  std::ifstream in(std::filesystem::path(ZKSIM_WIRE_DATA_DIR) / file);
  EXPECT_TRUE(in.good()) << "cannot open " << file;
  std::string line;
  std::string probe;
  std::map<int, std::string> probe_of;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.rfind("#= probe ", 0) == 0) {
      probe = line.substr(9);
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    int conn = 0;
    std::string dir;
    std::string data;
    fields >> conn >> dir >> data;
    if (!probe_of.count(conn)) probe_of[conn] = probe;
    if (dir == "closed-by") {
      if (data == "server") c.closed_by_server.push_back(conn);
      continue;
    }
    if (dir != ">" && dir != "<") continue;  // partial and big frames are not decoded here
    CapturedFrame f;
    f.conn = conn;
    f.to_server = dir == ">";
    f.bytes = unhex(data);
    f.probe = probe_of[conn];
    f.line = n;
    c.frames.push_back(std::move(f));
  }
  return c;
}

std::vector<const CapturedFrame*> Capture::of(int conn, bool to_server) const {
  std::vector<const CapturedFrame*> out;
  for (const CapturedFrame& f : frames) {
    if (f.conn == conn && f.to_server == to_server) out.push_back(&f);
  }
  return out;
}

std::vector<int> Capture::connections() const {
  std::set<int> s;
  for (const CapturedFrame& f : frames) s.insert(f.conn);
  return {s.begin(), s.end()};
}

int Capture::probe_conn(const std::string& probe) const {
  for (const CapturedFrame& f : frames) {
    if (f.probe == probe) return f.conn;
  }
  ADD_FAILURE() << "no probe " << probe;
  return -1;
}

std::vector<Exchange> exchanges(const Capture& c, int conn) {
  std::vector<Exchange> out;
  const auto requests = c.of(conn, true);
  const auto replies = c.of(conn, false);
  std::vector<bool> used(replies.size(), false);
  for (std::size_t i = 1; i < requests.size(); ++i) {  // [0] is the connect request
    Exchange e;
    e.request = requests[i];
    e.xid = int_at(e.request->bytes, 4);
    e.type = int_at(e.request->bytes, 8);
    for (std::size_t j = 1; j < replies.size(); ++j) {
      if (used[j] || replies[j]->line < e.request->line) continue;
      if (int_at(replies[j]->bytes, 4) == e.xid) {
        used[j] = true;
        e.reply = replies[j];
        break;
      }
    }
    out.push_back(e);
  }
  return out;
}

std::vector<Exchange> all_exchanges(const Capture& c) {
  std::vector<Exchange> out;
  for (int conn : c.connections()) {
    for (const Exchange& e : exchanges(c, conn)) out.push_back(e);
  }
  return out;
}

std::optional<Exchange> find(const Capture& c, OpCode code, int nth) {
  for (const Exchange& e : all_exchanges(c)) {
    if (e.type == static_cast<std::int32_t>(code) && nth-- == 0) return e;
  }
  return std::nullopt;
}

}  // namespace zksim::wire::test
