#include "zksim/wire/frame.h"

namespace zksim::wire {

FrameScan scan_frame(ByteView input, std::int32_t max_buffer) {
  FrameScan scan;
  Reader reader(input.first(input.size() < 4 ? input.size() : 4));
  if (!reader.read_int(scan.length)) return scan;
  if (scan.length < 0 || scan.length > max_buffer) {
    scan.status = FrameStatus::BadLength;
    return scan;
  }
  const auto need = 4 + static_cast<std::size_t>(scan.length);
  if (input.size() < need) return scan;
  scan.status = FrameStatus::Complete;
  scan.body = input.subspan(4, static_cast<std::size_t>(scan.length));
  scan.consumed = need;
  return scan;
}

Bytes frame(ByteView body) {
  Bytes out;
  out.reserve(4 + body.size());
  Writer w(out);
  w.write_int(static_cast<std::int32_t>(body.size()));
  out.insert(out.end(), body.begin(), body.end());
  return out;
}

}  // namespace zksim::wire
