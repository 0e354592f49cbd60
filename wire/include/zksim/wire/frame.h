// Length framing: every message on a ZooKeeper connection is a 4-byte
// big-endian length followed by that many bytes.
#pragma once

#include "zksim/wire/jute.h"

#include <cstddef>
#include <cstdint>

namespace zksim::wire {

enum class FrameStatus {
  Complete,    // body holds one whole frame; consumed bytes of input are used
  Incomplete,  // more bytes are needed
  BadLength,   // the server drops the connection: length < 0 or > max_buffer
};

struct FrameScan {
  FrameStatus status = FrameStatus::Incomplete;
  std::int32_t length = 0;    // the announced length, once 4 bytes arrived
  ByteView body;              // Complete only: the frame without its prefix
  std::size_t consumed = 0;   // Complete only: 4 + length
};

// Looks for one frame at the start of `input`. The limit is the server's
// own (NIOServerCnxn.readLength and NettyServerCnxn in 3.8): a length below
// 0 or above jute.maxbuffer closes the connection. The frame has no slack;
// the extra room of BinaryInputArchive applies to fields inside a frame.
FrameScan scan_frame(ByteView input, std::int32_t max_buffer = kDefaultMaxBuffer);

// `body` with its length prefix.
Bytes frame(ByteView body);

}  // namespace zksim::wire
