// What a Redis client sends and receives: a command's argv and a RESP2
// reply, as hiredis hands them over.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace zksim::redis {

// A command as Redis receives it: argv[0] is the command's name (any case),
// the rest its arguments; every element is a binary-safe string.
using Command = std::vector<std::string>;

// One RESP2 reply. `text` holds a status ("OK"), a bulk string's bytes or
// an error line without its '-' ("ERR syntax error", "WRONGTYPE ..."), as
// redisReply::str does; `elements` an array's items.
struct Reply {
  enum class Type { Nil, Integer, Status, Bulk, Error, Array };

  Type type = Type::Nil;
  std::int64_t integer = 0;
  std::string text;
  std::vector<Reply> elements;

  static Reply nil() { return {}; }
  static Reply of(std::int64_t n) { return {.type = Type::Integer, .integer = n}; }
  static Reply status(std::string s) { return {.type = Type::Status, .text = std::move(s)}; }
  static Reply ok() { return status("OK"); }
  static Reply bulk(std::string s) { return {.type = Type::Bulk, .text = std::move(s)}; }
  static Reply error(std::string s) { return {.type = Type::Error, .text = std::move(s)}; }
  static Reply array(std::vector<Reply> items) { return {.type = Type::Array, .elements = std::move(items)}; }

  bool is_error() const { return type == Type::Error; }
  bool is_nil() const { return type == Type::Nil; }

  friend bool operator==(const Reply&, const Reply&) = default;
};

// Shown as redis-cli shows it: (nil), (integer) 1, "bulk", OK, (error) ERR ...,
// and arrays as [a, b].
std::string to_string(const Reply& reply);

}  // namespace zksim::redis

template <>
struct fmt::formatter<zksim::redis::Reply> : fmt::formatter<std::string_view> {
  auto format(const zksim::redis::Reply& r, format_context& ctx) const {
    return fmt::formatter<std::string_view>::format(zksim::redis::to_string(r), ctx);
  }
};
