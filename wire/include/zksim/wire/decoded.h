// Decoded<T>: a decoded value, or why the bytes could not be decoded.
// Decoders return it and never throw or assert on their input.
#pragma once

#include <cassert>
#include <utility>
#include <variant>

namespace zksim::wire {

enum class DecodeError {
  Truncated,  // the bytes end before the record does
  BadLength,  // a length jute refuses (negative other than -1, over the limit)
  BadValue,   // a field no real peer sends here (an unknown multi type, event type, ...)
};

const char* decode_error_name(DecodeError e) noexcept;

template <class T>
class [[nodiscard]] Decoded {
 public:
  Decoded(T value) : v_(std::move(value)) {}  // NOLINT: implicit on purpose
  Decoded(DecodeError error) : v_(error) {}   // NOLINT

  bool ok() const noexcept { return v_.index() == 0; }
  explicit operator bool() const noexcept { return ok(); }
  // REQUIRES: !ok().
  DecodeError error() const { assert(!ok()); return std::get<1>(v_); }
  // REQUIRES: ok().
  T& value() & { assert(ok()); return std::get<0>(v_); }
  const T& value() const& { assert(ok()); return std::get<0>(v_); }
  T&& value() && { assert(ok()); return std::get<0>(std::move(v_)); }
  const T* operator->() const { return &value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, DecodeError> v_;
};

}  // namespace zksim::wire
