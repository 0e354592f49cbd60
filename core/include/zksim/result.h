// Result<T>: a value, or the ZooKeeper error that took its place.
// Protocol outcomes are values, never exceptions.
#pragma once

#include "zksim/error.h"

#include <cassert>
#include <optional>
#include <utility>

namespace zksim {

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose
  // REQUIRES: error != Error::Ok.
  Result(Error error) : error_(error) { assert(error != Error::Ok); }  // NOLINT

  bool ok() const noexcept { return error_ == Error::Ok; }
  explicit operator bool() const noexcept { return ok(); }
  // Error::Ok when the result holds a value.
  Error error() const noexcept { return error_; }

  // REQUIRES: ok().
  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Error error_ = Error::Ok;
  std::optional<T> value_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(error) {}  // NOLINT: Error::Ok means success here
  bool ok() const noexcept { return error_ == Error::Ok; }
  explicit operator bool() const noexcept { return ok(); }
  Error error() const noexcept { return error_; }

 private:
  Error error_ = Error::Ok;
};

}  // namespace zksim
