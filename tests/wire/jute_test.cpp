// jute primitives, framing and opcode numbers.
#include "zksim/wire/frame.h"
#include "zksim/wire/jute.h"
#include "zksim/wire/opcode.h"

#include <gtest/gtest.h>

namespace zksim::wire {
namespace {

Bytes bytes(std::initializer_list<int> v) {
  Bytes out;
  for (int b : v) out.push_back(static_cast<std::uint8_t>(b));
  return out;
}

TEST(Jute, IntsAndLongsAreBigEndian) {
  Bytes out;
  Writer w(out);
  w.write_int(0x01020304);
  w.write_long(-2);
  EXPECT_EQ(out, bytes({1, 2, 3, 4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe}));
  Reader r(out);
  std::int32_t i = 0;
  std::int64_t l = 0;
  ASSERT_TRUE(r.read_int(i));
  ASSERT_TRUE(r.read_long(l));
  EXPECT_EQ(i, 0x01020304);
  EXPECT_EQ(l, -2);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(Jute, AnyNonZeroByteIsTrue) {
  const Bytes in = bytes({0, 1, 7, 0xff});
  Reader r(in);
  bool b[4] = {};
  for (bool& x : b) ASSERT_TRUE(r.read_bool(x));
  EXPECT_FALSE(b[0]);
  EXPECT_TRUE(b[1]);
  EXPECT_TRUE(b[2]);
  EXPECT_TRUE(b[3]);
}

TEST(Jute, LengthMinusOneIsNull) {
  const Bytes in = bytes({0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0});
  Reader r(in);
  std::optional<std::string> a = "x";
  std::optional<std::string> b;
  ASSERT_TRUE(r.read_buffer(a));
  ASSERT_TRUE(r.read_buffer(b));
  EXPECT_FALSE(a.has_value());
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(*b, "");
}

TEST(Jute, ANegativeBufferLengthOtherThanMinusOneIsRefused) {
  const Bytes in = bytes({0xff, 0xff, 0xff, 0xfe, 0});
  Reader r(in);
  std::optional<std::string> s;
  EXPECT_FALSE(r.read_buffer(s));
  EXPECT_EQ(r.failure(), DecodeError::BadLength);
}

// BinaryInputArchive.checkLength: maxBuffer + extraMaxBuffer, where
// extraMaxBuffer defaults to maxBuffer and is at least 1024.
TEST(Jute, ABufferLongerThanMaxBufferAndItsSlackIsRefused) {
  auto read_length = [](std::int32_t len, std::int32_t max_buffer) {
    Bytes in;
    Writer(in).write_int(len);
    in.resize(in.size() + static_cast<std::size_t>(len), 'x');
    Reader r(in, max_buffer);
    std::optional<std::string> s;
    const bool ok = r.read_buffer(s);
    EXPECT_TRUE(ok || r.failure() == DecodeError::BadLength);
    return ok;
  };
  EXPECT_TRUE(read_length(4000, 2000));
  EXPECT_FALSE(read_length(4001, 2000));
  EXPECT_TRUE(read_length(16 + 1024, 16));
  EXPECT_FALSE(read_length(16 + 1025, 16));
}

TEST(Jute, AVectorLengthBelowMinusOneIsEmpty) {
  const Bytes in = bytes({0xff, 0xff, 0xff, 0xfb, 0xff, 0xff, 0xff, 0xff});
  Reader r(in);
  std::optional<std::int32_t> a;
  std::optional<std::int32_t> b = 3;
  ASSERT_TRUE(r.read_vector_length(a));
  ASSERT_TRUE(r.read_vector_length(b));
  EXPECT_EQ(a, 0);
  EXPECT_FALSE(b.has_value());
}

TEST(Jute, AReaderNeverReadsPastTheEndAndStaysFailed) {
  const Bytes in = bytes({0, 0, 0, 9, 'a', 'b', 0, 0, 0, 0});
  Reader r(ByteView(in).first(6));
  std::optional<std::string> s;
  EXPECT_FALSE(r.read_buffer(s));
  EXPECT_EQ(r.failure(), DecodeError::Truncated);
  std::int32_t i = 0;
  EXPECT_FALSE(r.read_int(i));  // two bytes would still be there: the failure sticks
  EXPECT_TRUE(r.failed());
}

TEST(Frame, AFrameAtJuteMaxBufferIsWhole) {
  Bytes in;
  Writer(in).write_int(kDefaultMaxBuffer);
  in.resize(4 + kDefaultMaxBuffer);
  const FrameScan s = scan_frame(in);
  EXPECT_EQ(s.status, FrameStatus::Complete);
  EXPECT_EQ(s.consumed, in.size());
  EXPECT_EQ(s.body.size(), static_cast<std::size_t>(kDefaultMaxBuffer));
}

// NIOServerCnxn.readLength: no slack over jute.maxbuffer for the frame.
TEST(Frame, AFrameOverJuteMaxBufferDropsTheConnection) {
  Bytes in;
  Writer(in).write_int(kDefaultMaxBuffer + 1);
  EXPECT_EQ(scan_frame(in).status, FrameStatus::BadLength);
  EXPECT_EQ(scan_frame(in, kDefaultMaxBuffer + 1).status, FrameStatus::Incomplete);
}

TEST(Frame, ANegativeLengthDropsTheConnection) {
  const Bytes in = bytes({0xff, 0xff, 0xff, 0xfb});
  EXPECT_EQ(scan_frame(in).status, FrameStatus::BadLength);
}

TEST(Frame, AFrameIsIncompleteUntilAllOfItArrived) {
  const Bytes whole = frame(bytes({1, 2, 3}));
  for (std::size_t n = 0; n < whole.size(); ++n) {
    EXPECT_EQ(scan_frame(ByteView(whole).first(n)).status, FrameStatus::Incomplete) << n;
  }
  Bytes two = whole;
  two.insert(two.end(), whole.begin(), whole.end());
  const FrameScan s = scan_frame(two);
  ASSERT_EQ(s.status, FrameStatus::Complete);
  EXPECT_EQ(s.consumed, 7u);
  EXPECT_EQ(Bytes(s.body.begin(), s.body.end()), bytes({1, 2, 3}));
}

// ZooDefs.OpCode in 3.8.
TEST(OpCodes, NumbersAreZooDefsOwn) {
  const std::pair<OpCode, int> expected[] = {
      {OpCode::Notification, 0}, {OpCode::Create, 1}, {OpCode::Delete, 2}, {OpCode::Exists, 3},
      {OpCode::GetData, 4}, {OpCode::SetData, 5}, {OpCode::GetAcl, 6}, {OpCode::SetAcl, 7},
      {OpCode::GetChildren, 8}, {OpCode::Sync, 9}, {OpCode::Ping, 11}, {OpCode::GetChildren2, 12},
      {OpCode::Check, 13}, {OpCode::Multi, 14}, {OpCode::Create2, 15}, {OpCode::Reconfig, 16},
      {OpCode::CheckWatches, 17}, {OpCode::RemoveWatches, 18}, {OpCode::CreateContainer, 19},
      {OpCode::DeleteContainer, 20}, {OpCode::CreateTtl, 21}, {OpCode::MultiRead, 22},
      {OpCode::Auth, 100}, {OpCode::SetWatches, 101}, {OpCode::Sasl, 102},
      {OpCode::GetEphemerals, 103}, {OpCode::GetAllChildrenNumber, 104}, {OpCode::SetWatches2, 105},
      {OpCode::AddWatch, 106}, {OpCode::WhoAmI, 107}, {OpCode::CreateSession, -10},
      {OpCode::CloseSession, -11}, {OpCode::Error, -1}};
  for (auto [code, number] : expected) {
    EXPECT_EQ(static_cast<int>(code), number) << opcode_name(code);
    EXPECT_TRUE(is_opcode(number));
  }
  EXPECT_FALSE(is_opcode(10));
  EXPECT_FALSE(is_opcode(50));
  EXPECT_EQ(opcode_name(OpCode::GetChildren2), "getChildren2");
  EXPECT_EQ(opcode_name(static_cast<OpCode>(50)), "unknown");
}

// ClientCnxn and the C client's zk_adaptor.h.
TEST(OpCodes, SpecialXidsAreTheClientsOwn) {
  EXPECT_EQ(kNotificationXid, -1);
  EXPECT_EQ(kPingXid, -2);
  EXPECT_EQ(kAuthXid, -4);
  EXPECT_EQ(kSetWatchesXid, -8);
}

}  // namespace
}  // namespace zksim::wire
