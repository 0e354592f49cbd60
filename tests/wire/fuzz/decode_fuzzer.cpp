// libFuzzer target for the wire decoders. The first input byte picks the
// decoder, the rest is a frame body (for replies: a 4-byte opcode, then the
// body). Beyond "never crashes, never reads past the input" (ASan and UBSan
// watch that), everything decoded must encode, and decode and encode again
// to the same bytes.
#include "zksim/wire/connect.h"
#include "zksim/wire/frame.h"
#include "zksim/wire/reply.h"
#include "zksim/wire/request.h"

#include <cstdint>
#include <cstdlib>

namespace {

using namespace zksim::wire;

void require(bool ok) {
  if (!ok) std::abort();
}

ByteView body_of(const Bytes& whole_frame) { return ByteView(whole_frame).subspan(4); }

void request(ByteView in) {
  const RequestDecode d = decode_request(in);
  if (const auto* a = std::get_if<Answer>(&d)) {
    if (a->action != AnswerAction::Close) require(!encode_answer(*a, 7).empty());
    return;
  }
  const Bytes once = encode_request(std::get<RequestFrame>(d));
  const RequestDecode again = decode_request(body_of(once));
  require(std::holds_alternative<RequestFrame>(again));
  require(encode_request(std::get<RequestFrame>(again)) == once);
}

void reply(ByteView in) {
  Reader r(in);
  std::int32_t code = 0;
  if (!r.read_int(code)) return;
  const auto d = decode_reply(in.subspan(4), static_cast<OpCode>(code));
  if (!d) return;
  const auto once = encode_reply(*d);
  require(once.has_value());
  const auto again = decode_reply(body_of(*once), static_cast<OpCode>(code));
  require(again.ok());
  const auto twice = encode_reply(*again);
  require(twice.has_value() && *twice == *once);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const ByteView in(data + 1, size - 1);
  switch (data[0] % 6) {
    case 0:
      request(in);
      break;
    case 1:
      reply(in);
      break;
    case 2:
      if (const auto c = decode_connect_request(in)) {
        const Bytes once = encode_connect_request(*c);
        require(decode_connect_request(body_of(once)).value() == *c);
      }
      break;
    case 3:
      if (const auto c = decode_connect_response(in)) {
        const Bytes once = encode_connect_response(*c);
        require(decode_connect_response(body_of(once)).value() == *c);
      }
      break;
    case 4:
      if (const auto e = decode_notification(in)) {
        require(decode_notification(body_of(encode_notification(*e))).value() == *e);
      }
      break;
    default: {
      const FrameScan s = scan_frame(in, 64);
      if (s.status == FrameStatus::Complete) require(s.consumed == 4 + s.body.size() && s.consumed <= in.size());
      break;
    }
  }
  return 0;
}
