#include "zksim/wire/jute.h"

namespace zksim::wire {

bool Reader::take(std::size_t n, const std::uint8_t*& p) {
  if (failed_ || remaining() < n) {
    failed_ = true;
    return false;
  }
  p = in_.data() + pos_;
  pos_ += n;
  return true;
}

bool Reader::read_int(std::int32_t& out) {
  const std::uint8_t* p = nullptr;
  if (!take(4, p)) return false;
  const std::uint32_t u = (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) |
                          (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
  out = static_cast<std::int32_t>(u);
  return true;
}

bool Reader::read_long(std::int64_t& out) {
  const std::uint8_t* p = nullptr;
  if (!take(8, p)) return false;
  std::uint64_t u = 0;
  for (int i = 0; i < 8; ++i) u = (u << 8) | p[i];
  out = static_cast<std::int64_t>(u);
  return true;
}

bool Reader::read_bool(bool& out) {
  const std::uint8_t* p = nullptr;
  if (!take(1, p)) return false;
  out = *p != 0;
  return true;
}

bool Reader::read_buffer(std::optional<std::string>& out) {
  std::int32_t len = 0;
  if (!read_int(len)) return false;
  if (len == -1) {
    out.reset();
    return true;
  }
  if (len < 0 || len > max_field_) {
    failed_ = true;
    bad_length_ = true;
    return false;
  }
  const std::uint8_t* p = nullptr;
  if (!take(static_cast<std::size_t>(len), p)) return false;
  out.emplace(reinterpret_cast<const char*>(p), static_cast<std::size_t>(len));
  return true;
}

bool Reader::read_vector_length(std::optional<std::int32_t>& out) {
  std::int32_t len = 0;
  if (!read_int(len)) return false;
  if (len == -1) {
    out.reset();
  } else {
    out = len < 0 ? 0 : len;
  }
  return true;
}

void Writer::write_int(std::int32_t v) {
  const auto u = static_cast<std::uint32_t>(v);
  for (int shift = 24; shift >= 0; shift -= 8) out_.push_back(static_cast<std::uint8_t>(u >> shift));
}

void Writer::write_long(std::int64_t v) {
  const auto u = static_cast<std::uint64_t>(v);
  for (int shift = 56; shift >= 0; shift -= 8) out_.push_back(static_cast<std::uint8_t>(u >> shift));
}

void Writer::write_bool(bool v) { out_.push_back(v ? 1 : 0); }

void Writer::write_buffer(std::string_view v) {
  write_int(static_cast<std::int32_t>(v.size()));
  out_.insert(out_.end(), v.begin(), v.end());
}

void Writer::write_null() { write_int(-1); }

void Writer::write_buffer(const std::optional<std::string>& v) {
  if (v) {
    write_buffer(std::string_view(*v));
  } else {
    write_null();
  }
}

std::size_t Writer::begin_frame() {
  const std::size_t mark = out_.size();
  write_int(0);
  return mark;
}

void Writer::end_frame(std::size_t mark) {
  const auto len = static_cast<std::uint32_t>(out_.size() - mark - 4);
  for (int i = 0; i < 4; ++i) out_[mark + i] = static_cast<std::uint8_t>(len >> (24 - 8 * i));
}

}  // namespace zksim::wire
