// The timeline's parts: escaping, short paths, and znode lifetimes inferred
// from traces (built by hand, and from library runs).
#include "escape.h"
#include "model.h"
#include "timeline_testing.h"

#include "zksim/fault.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace zksim::timeline::detail {
namespace {

TEST(TimelineEscape, InvalidUtf8BecomesReplacementCharacters) {
  EXPECT_EQ(valid_utf8("plain /a-b_c"), "plain /a-b_c");
  EXPECT_EQ(valid_utf8("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
  EXPECT_EQ(valid_utf8("a\xff"), "a\uFFFD");
  EXPECT_EQ(valid_utf8("\xc0\xaf"), "\uFFFD\uFFFD");          // overlong '/'
  EXPECT_EQ(valid_utf8("\xed\xa0\x80"), "\uFFFD\uFFFD\uFFFD");  // a surrogate
  EXPECT_EQ(valid_utf8("\xe2\x82"), "\uFFFD\uFFFD");          // cut short
  EXPECT_EQ(valid_utf8("\xf4\x90\x80\x80"), "\uFFFD\uFFFD\uFFFD\uFFFD");  // past U+10FFFF
}

TEST(TimelineEscape, PrintableClipAndPad) {
  EXPECT_EQ(printable("a\nb\tc\x1b[0m\x7f\xc2\x85"), "a?b?c?[0m??");
  EXPECT_EQ(columns("h\xc3\xa9llo \xe2\x80\xa6"), 7u);
  EXPECT_EQ(clip("h\xc3\xa9llo w\xc3\xb6rld", 5), "h\xc3\xa9ll\u2026");
  EXPECT_EQ(clip("h\xc3\xa9llo", 5), "h\xc3\xa9llo");
  EXPECT_EQ(clip("abc", 0), "");
  EXPECT_EQ(pad("\xc3\xa9", 3), "\xc3\xa9  ");
  EXPECT_EQ(pad("abcd", 2), "abcd");
}

TEST(TimelineEscape, HtmlAndJson) {
  EXPECT_EQ(html_escape("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
  EXPECT_EQ(json_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(json_string("</script><!--&"), "\"\\u003c/script\\u003e\\u003c!--\\u0026\"");
  EXPECT_EQ(json_string("\n\x01\x7f\u2028\u2029"), "\"\\u000a\\u0001\\u007f\\u2028\\u2029\"");
  EXPECT_EQ(json_string("\xff\xc3\xa9"), "\"\uFFFD\xc3\xa9\"");
}

TEST(TimelineModel, ShortPaths) {
  const std::string base = "/zksim/recipe";
  EXPECT_EQ(short_path("/zksim/recipe/_c_0-1-lock-0000000012", base), "\u2026/_c_0-1-lock-\u202612");
  EXPECT_EQ(short_path("/zksim/recipe/n-0000000000", base), "\u2026/n-\u20260");
  EXPECT_EQ(short_path("/zksim/recipe/n-2147483647", base), "\u2026/n-2147483647");
  EXPECT_EQ(short_path("/zksim/recipe", base), "\u2026");
  EXPECT_EQ(short_path("/zksim/recipex/y", base), "/zksim/recipex/y");
  EXPECT_EQ(short_path("/zksim", base), "/zksim");
  EXPECT_EQ(short_path("/zksim/recipe/a", ""), "/zksim/recipe/a");
}

// Trace events by hand.
constexpr std::int32_t kCreate = 0, kGetData = 5;
const SessionId kS0{100}, kS1{101};

TraceEvent request(TimeMs t, int client, SessionId s, std::int32_t kind, std::uint32_t xid, std::string path) {
  return TraceEvent{.time = t, .kind = TraceKind::Request, .client = client, .session = s, .code = kind, .xid = xid, .path = std::move(path)};
}
TraceEvent response(TimeMs t, int client, SessionId s, std::int64_t zxid, Error e, std::int32_t kind, std::uint32_t xid,
                    std::string path) {
  return TraceEvent{.time = t, .kind = TraceKind::Response, .client = client, .session = s, .zxid = zxid,
                    .code = static_cast<std::int32_t>(e), .code2 = kind, .xid = xid, .path = std::move(path)};
}
TraceEvent expired(TimeMs t, SessionId s, std::int64_t zxid) {
  return TraceEvent{.time = t, .kind = TraceKind::Server, .session = s, .zxid = zxid,
                    .code = static_cast<std::int32_t>(ServerAction::SessionExpired)};
}

const Znode* find(const std::vector<Znode>& nodes, const std::string& path) {
  auto it = std::find_if(nodes.begin(), nodes.end(), [&](const Znode& z) { return z.path == path; });
  return it == nodes.end() ? nullptr : &*it;
}

TEST(TimelineZnodes, SequentialNamesFollowTheCreatesOrder) {
  std::vector<TraceEvent> trace = {
      request(1, 0, kS0, kCreate, 1, "/d/n-"),
      request(1, 1, kS1, kCreate, 1, "/d/n-"),
      response(3, 0, kS0, 5, Error::Ok, kCreate, 1, "/d/n-"),
      response(4, 1, kS1, 6, Error::Ok, kCreate, 1, "/d/n-"),
      // Named later, and the other way round.
      request(5, 0, kS0, kGetData, 2, "/d/n-0000000001"),
      request(6, 1, kS1, kGetData, 2, "/d/n-0000000000"),
  };
  auto nodes = znode_lifetimes(trace, {});
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].path, "/d/n-0000000000");
  EXPECT_EQ(nodes[0].client, 0);
  EXPECT_EQ(nodes[0].created, 3);
  EXPECT_EQ(nodes[1].path, "/d/n-0000000001");
  EXPECT_EQ(nodes[1].client, 1);
  EXPECT_NE(nodes[1].detail.find("inferred"), std::string::npos);
  // A name only the history knows counts too; one never seen is "?".
  trace.resize(4);
  nodes = znode_lifetimes(trace, {{"/d/n-0000000000", 9}});
  EXPECT_TRUE(find(nodes, "/d/n-0000000000"));
  EXPECT_TRUE(find(nodes, "/d/n-?"));
}

TEST(TimelineZnodes, ASessionsEndRemovesItsLeavesUnlessLaterNewsSaysOtherwise) {
  std::vector<TraceEvent> trace = {
      response(2, 0, kS0, 1, Error::Ok, kCreate, 1, "/dir"),
      response(3, 0, kS0, 2, Error::Ok, kCreate, 2, "/dir/leaf"),
      response(4, 0, kS0, 3, Error::Ok, kCreate, 3, "/kept"),
      response(5, 0, kS0, 4, Error::Ok, kCreate, 4, "/gone"),
      expired(50, kS0, 9),
      response(60, 1, kS1, 9, Error::Ok, kGetData, 1, "/kept"),    // still there: persistent
      response(61, 1, kS1, 9, Error::NoNode, kGetData, 2, "/gone"),  // gone with the session
  };
  auto nodes = znode_lifetimes(trace, {});
  ASSERT_EQ(nodes.size(), 4u);
  EXPECT_EQ(find(nodes, "/dir")->deleted, -1) << "a node with children is not ephemeral";
  EXPECT_EQ(find(nodes, "/dir/leaf")->deleted, 50);
  EXPECT_NE(find(nodes, "/dir/leaf")->detail.find("ephemeral, inferred"), std::string::npos);
  EXPECT_EQ(find(nodes, "/kept")->deleted, -1);
  EXPECT_EQ(find(nodes, "/gone")->deleted, 50);
  EXPECT_NE(find(nodes, "/gone")->detail.find("ZNONODE"), std::string::npos);
}

TEST(TimelineZnodes, ACreateAppliedWithItsReplyLost) {
  std::vector<TraceEvent> trace = {
      request(1, 0, kS0, kCreate, 7, "/n"),
      TraceEvent{.time = 2, .kind = TraceKind::Fault, .client = 0, .session = kS0, .zxid = 4,
                 .code = static_cast<std::int32_t>(FaultKind::DropAfterApply), .xid = 7, .path = "/n",
                 .detail = "applied ZOK, reply lost"},
      request(3, 0, kS0, kCreate, 8, "/m"),
      TraceEvent{.time = 4, .kind = TraceKind::Fault, .client = 0, .session = kS0, .zxid = 4,
                 .code = static_cast<std::int32_t>(FaultKind::DropBeforeApply), .xid = 8, .path = "/m",
                 .detail = "request lost"},
  };
  auto nodes = znode_lifetimes(trace, {});
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0].path, "/n");
  EXPECT_NE(nodes[0].detail.find("reply lost"), std::string::npos);
}

TEST(TimelineZnodes, LibraryRuns) {
  auto expiry = testing::library_run("lock-holder-expires-while-holding");
  Model m = build_model(expiry.scenario, expiry.run);
  const Znode* first = find(m.znodes, "/zksim/recipe/_c_0-1-lock-0000000000");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->client, 0);
  EXPECT_EQ(first->created, 12);
  EXPECT_EQ(first->deleted, 100) << "removed when the server expired c0's session";
  const Znode* second = find(m.znodes, "/zksim/recipe/_c_1-1-lock-0000000001");
  ASSERT_TRUE(second);
  EXPECT_EQ(second->deleted, 405);
  EXPECT_EQ(find(m.znodes, "/zksim/recipe")->deleted, -1);

  // c3 crashes right after sending its create: no reply, but c2 then reads the node.
  auto crash = testing::library_run("lock-crash");
  m = build_model(crash.scenario, crash.run);
  const Znode* orphan = find(m.znodes, "/zksim/recipe/_c_3-4-lock-0000000012");
  ASSERT_TRUE(orphan);
  EXPECT_EQ(orphan->created, 2235);
  EXPECT_EQ(orphan->deleted, 4400);

  // The create whose reply was lost leaves the node no-leaks reports.
  auto lost = testing::library_run("flawed-no-guid-lock");
  m = build_model(lost.scenario, lost.run);
  const Znode* left = find(m.znodes, "/zksim/recipe/lock-0000000015");
  ASSERT_TRUE(left);
  EXPECT_EQ(left->deleted, -1);
  EXPECT_NE(left->detail.find("reply lost"), std::string::npos);
}

TEST(TimelineModel, SpansOfALibraryRun) {
  auto r = testing::library_run("lock-holder-expires-while-holding");
  const Model m = build_model(r.scenario, r.run);
  auto has = [&](int lane, SpanKind k, TimeMs from, TimeMs to) {
    return std::any_of(m.spans.begin(), m.spans.end(),
                       [&](const Span& s) { return s.lane == lane && s.kind == k && s.from == from && s.to == to; });
  };
  EXPECT_TRUE(has(0, SpanKind::Holding, 14, 101));   // until told suspended
  EXPECT_TRUE(has(0, SpanKind::Unaware, 100, 101));  // the server expired it; it hears at 101
  EXPECT_TRUE(has(0, SpanKind::Disconnected, 101, 113));
  EXPECT_TRUE(has(1, SpanKind::Waiting, 0, 103));
  EXPECT_TRUE(has(1, SpanKind::Holding, 103, 403));
  EXPECT_TRUE(has(1, SpanKind::Watch, 16, 101)) << "set by c1's getData of c0's node";
  EXPECT_EQ(m.clients, 3);
  EXPECT_EQ(m.base, "/zksim/recipe");
  EXPECT_EQ(m.last, 1925);
  EXPECT_TRUE(std::is_sorted(m.marks.begin(), m.marks.end(), [](const Mark& a, const Mark& b) { return a.t < b.t; }));
}

TEST(TimelineModel, HerdWakeUpsAreFlagged) {
  auto herd = testing::library_run("flawed-herd-lock");
  const Model m = build_model(herd.scenario, herd.run);
  auto alerts = std::count_if(m.marks.begin(), m.marks.end(), [](const Mark& k) { return k.alert; });
  EXPECT_GT(alerts, 10);
  auto calm = testing::library_run("lock-holder-expires-while-holding");
  const Model c = build_model(calm.scenario, calm.run);
  EXPECT_EQ(std::count_if(c.marks.begin(), c.marks.end(), [](const Mark& k) { return k.alert; }), 0);
}

}  // namespace
}  // namespace zksim::timeline::detail
