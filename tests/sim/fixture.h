// Shared helpers for the server tests: a server with one open session and
// terse wrappers that return the Outcome of one request.
#pragma once

#include "zksim/server.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

namespace zksim::test {

class ServerTest : public ::testing::Test {
 protected:
  ServerTest() : server(ServerConfig{.tick_ms = 200}) { s1 = server.open_session(4000, now).id; }

  Outcome run(const Request& r, SessionId s = SessionId{}) {
    return server.apply(s == SessionId{} ? s1 : s, r, now);
  }
  Outcome create(const std::string& path, CreateMode mode = CreateMode::Persistent,
                 const std::string& data = "", SessionId s = SessionId{}) {
    return run(CreateRequest{.path = path, .data = data, .mode = mode}, s);
  }
  Error err(const Request& r, SessionId s = SessionId{}) { return run(r, s).error; }
  Stat stat(const std::string& path) { return server.node(path).value().stat; }
  std::string created_path(const Outcome& o) { return std::get<CreateResponse>(o.response).path; }

  TimeMs now = 1000;
  Server server;
  SessionId s1;
};

}  // namespace zksim::test
