// jute, ZooKeeper's binary record encoding (BinaryInputArchive and
// BinaryOutputArchive in 3.8): big-endian 4-byte ints and 8-byte longs,
// one-byte booleans, and buffers, strings and vectors prefixed with a 4-byte
// length where -1 means null.
#pragma once

#include "zksim/wire/decoded.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace zksim::wire {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;

// jute.maxbuffer's default (BinaryInputArchive.maxBuffer, 0xfffff): the
// largest frame the server reads.
inline constexpr std::int32_t kDefaultMaxBuffer = 0xfffff;

// Reads jute from a byte span and never past its end. A read that cannot be
// done (too few bytes, a length jute refuses) returns false and leaves the
// reader failed: every later read fails too, so a decoder may read a whole
// record and check once. Strings are kept as the bytes that arrived (the
// server decodes them as UTF-8, replacing malformed sequences).
class Reader {
 public:
  // `max_buffer` is jute.maxbuffer. A buffer or string may be longer by the
  // slack (BinaryInputArchive.checkLength: maxBuffer + extraMaxBuffer, and
  // extraMaxBuffer defaults to maxBuffer, at least 1024).
  explicit Reader(ByteView in, std::int32_t max_buffer = kDefaultMaxBuffer)
      : in_(in), max_field_(std::int64_t{max_buffer} + (max_buffer < 1024 ? 1024 : max_buffer)) {}

  bool read_int(std::int32_t& out);
  bool read_long(std::int64_t& out);
  // Any non-zero byte is true (DataInput.readBoolean).
  bool read_bool(bool& out);
  // A buffer or ustring: nullopt for length -1. Fails on any other negative
  // length or one over the limit (BinaryInputArchive.checkLength).
  bool read_buffer(std::optional<std::string>& out);
  // A vector's length: nullopt for -1 (null); 0 for any other negative
  // length, which the server reads as an empty vector (BinaryIndex.done is
  // nelems <= 0).
  bool read_vector_length(std::optional<std::int32_t>& out);

  bool failed() const noexcept { return failed_; }
  // Why the reader failed. REQUIRES: failed().
  DecodeError failure() const noexcept { return bad_length_ ? DecodeError::BadLength : DecodeError::Truncated; }
  std::size_t remaining() const noexcept { return in_.size() - pos_; }
  std::size_t position() const noexcept { return pos_; }

 private:
  bool take(std::size_t n, const std::uint8_t*& p);

  ByteView in_;
  std::size_t pos_ = 0;
  std::int64_t max_field_;
  bool failed_ = false;
  bool bad_length_ = false;
};

// Appends jute to a byte vector.
class Writer {
 public:
  explicit Writer(Bytes& out) : out_(out) {}

  void write_int(std::int32_t v);
  void write_long(std::int64_t v);
  void write_bool(bool v);  // 1 or 0
  void write_buffer(std::string_view v);
  void write_null();  // a null buffer, string or vector: length -1
  void write_buffer(const std::optional<std::string>& v);

  // A 4-byte length prefix for what follows: begin_frame() leaves room for
  // it and end_frame() writes the number of bytes appended since.
  std::size_t begin_frame();
  void end_frame(std::size_t mark);

 private:
  Bytes& out_;
};

}  // namespace zksim::wire
