// Result<T>: a value, or the ZooKeeper error that took its place.
// Protocol outcomes are values, never exceptions. Another protocol's models
// (etcd/) use Result<T, TheirError>, whose enum has an Ok as well.
#pragma once

#include "zksim/error.h"

#include <cassert>
#include <optional>
#include <utility>

namespace zksim {

template <class T, class E = Error>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit on purpose
  // REQUIRES: error != E::Ok.
  Result(E error) : error_(error) { assert(error != E::Ok); }  // NOLINT

  bool ok() const noexcept { return error_ == E::Ok; }
  explicit operator bool() const noexcept { return ok(); }
  // E::Ok when the result holds a value.
  E error() const noexcept { return error_; }

  // REQUIRES: ok().
  T& value() & { assert(ok()); return *value_; }
  const T& value() const& { assert(ok()); return *value_; }
  T&& value() && { assert(ok()); return std::move(*value_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  E error_ = E::Ok;
  std::optional<T> value_;
};

template <class E>
class [[nodiscard]] Result<void, E> {
 public:
  Result() = default;
  Result(E error) : error_(error) {}  // NOLINT: E::Ok means success here
  bool ok() const noexcept { return error_ == E::Ok; }
  explicit operator bool() const noexcept { return ok(); }
  E error() const noexcept { return error_; }

 private:
  E error_ = E::Ok;
};

}  // namespace zksim
