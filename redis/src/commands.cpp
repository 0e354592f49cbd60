// The commands of the subset, each as Redis 7.0.15 runs it: the order of its
// checks and its replies follow the C function named above it.
#include "node.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <optional>

namespace zksim::redis::detail {
namespace {

constexpr std::int64_t kMax = INT64_MAX;

Reply err(std::string_view message) { return Reply::error(fmt::format("ERR {}", message)); }
Reply wrongtype() { return Reply::error("WRONGTYPE Operation against a key holding the wrong kind of value"); }
Reply syntax_error() { return err("syntax error"); }
Reply not_integer() { return err("value is not an integer or out of range"); }
Reply overflow() { return err("increment or decrement would overflow"); }
Reply expire_time_error(std::string_view name) { return err(fmt::format("invalid expire time in '{}' command", name)); }
Reply arity_error(std::string_view name) { return err(fmt::format("wrong number of arguments for '{}' command", name)); }

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool same(std::string_view a, std::string_view lowercase) {
  return a.size() == lowercase.size() &&
         std::equal(a.begin(), a.end(), lowercase.begin(), [](char x, char y) { return lower(x) == y; });
}

// util.c string2ll: an optional '-', no '+', no leading zeros or spaces,
// fewer than 21 bytes, within int64.
std::optional<std::int64_t> parse_int(std::string_view s) {
  if (s.empty() || s.size() >= 21) return std::nullopt;
  if (s == "0") return 0;
  std::size_t i = 0;
  const bool negative = s[0] == '-';
  if (negative && ++i == s.size()) return std::nullopt;
  if (s[i] < '1' || s[i] > '9') return std::nullopt;
  std::uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(s[i] - '0');
    if (v > (UINT64_MAX - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  if (negative) {
    if (v > static_cast<std::uint64_t>(kMax) + 1) return std::nullopt;
    return static_cast<std::int64_t>(0 - v);
  }
  if (v > static_cast<std::uint64_t>(kMax)) return std::nullopt;
  return static_cast<std::int64_t>(v);
}

// The overflow test of incrDecrCommand and hincrbyCommand.
bool would_overflow(std::int64_t old, std::int64_t incr) {
  return (incr < 0 && old < 0 && incr < (INT64_MIN - old)) || (incr > 0 && old > 0 && incr > (kMax - old));
}

struct Call {
  Node& node;
  const Command& argv;
  TimeMs now;
  std::vector<Message>& published;
  const std::string& key() const { return argv[1]; }
};

std::string* as_string(Entry& e) { return std::get_if<std::string>(&e.value); }
Hash* as_hash(Entry& e) { return std::get_if<Hash>(&e.value); }

// t_string.c getGenericCommand.
Reply get(Call& c) {
  Entry* e = c.node.lookup(c.key(), c.now);
  if (!e) return Reply::nil();
  if (std::string* s = as_string(*e)) return Reply::bulk(*s);
  return wrongtype();
}

// t_string.c parseExtendedStringArgumentsOrReply, getExpireMillisecondsOrReply
// and setGenericCommand.
Reply set(Call& c) {
  enum : unsigned { NX = 1, XX = 2, EX = 4, PX = 8, KEEPTTL = 16, GET = 32, EXAT = 64, PXAT = 128 };
  unsigned flags = 0;
  const std::string* expire = nullptr;
  const std::size_t argc = c.argv.size();
  for (std::size_t j = 3; j < argc; ++j) {
    const std::string& opt = c.argv[j];
    const bool next = j + 1 < argc;
    if (same(opt, "nx") && !(flags & XX)) {
      flags |= NX;
    } else if (same(opt, "xx") && !(flags & NX)) {
      flags |= XX;
    } else if (same(opt, "get")) {
      flags |= GET;
    } else if (same(opt, "keepttl") && !(flags & (EX | EXAT | PX | PXAT))) {
      flags |= KEEPTTL;
    } else if (same(opt, "ex") && !(flags & (KEEPTTL | EXAT | PX | PXAT)) && next) {
      flags |= EX;
      expire = &c.argv[++j];
    } else if (same(opt, "px") && !(flags & (KEEPTTL | EX | EXAT | PXAT)) && next) {
      flags |= PX;
      expire = &c.argv[++j];
    } else if (same(opt, "exat") && !(flags & (KEEPTTL | EX | PX | PXAT)) && next) {
      flags |= EXAT;
      expire = &c.argv[++j];
    } else if (same(opt, "pxat") && !(flags & (KEEPTTL | EX | EXAT | PX)) && next) {
      flags |= PXAT;
      expire = &c.argv[++j];
    } else {
      return syntax_error();
    }
  }

  TimeMs deadline = 0;
  if (expire) {
    const auto n = parse_int(*expire);
    if (!n) return not_integer();
    const bool seconds = flags & (EX | EXAT);
    std::int64_t ms = *n;
    if (ms <= 0 || (seconds && ms > kMax / 1000)) return expire_time_error("set");
    if (seconds) ms *= 1000;
    if (flags & (EX | PX)) {
      // Redis adds mstime() and takes a wrapped, non-positive sum for an
      // overflow; the same test without the signed overflow.
      if (ms > kMax - c.now) return expire_time_error("set");
      ms += c.now;
    }
    if (ms <= 0) return expire_time_error("set");
    deadline = ms;
  }

  Reply old = Reply::nil();
  if (flags & GET) {
    old = get(c);
    if (old.is_error()) return old;
  }
  Entry* e = c.node.lookup(c.key(), c.now);
  if (((flags & NX) && e) || ((flags & XX) && !e)) return (flags & GET) ? old : Reply::nil();

  std::optional<TimeMs> kept = ((flags & KEEPTTL) && e) ? e->deadline : std::nullopt;
  Entry& slot = c.node.keyspace.keys[c.key()];
  slot.value = c.argv[2];
  slot.deadline = expire ? std::optional<TimeMs>(deadline) : kept;
  return (flags & GET) ? old : Reply::ok();
}

// db.c delGenericCommand: keys past their deadline are not counted.
Reply del(Call& c) {
  std::int64_t deleted = 0;
  for (std::size_t j = 1; j < c.argv.size(); ++j) {
    if (c.node.lookup(c.argv[j], c.now)) {
      c.node.keyspace.keys.erase(c.argv[j]);
      ++deleted;
    }
  }
  return Reply::of(deleted);
}

// db.c existsCommand: a key named twice counts twice.
Reply exists(Call& c) {
  std::int64_t count = 0;
  for (std::size_t j = 1; j < c.argv.size(); ++j) count += c.node.lookup(c.argv[j], c.now) ? 1 : 0;
  return Reply::of(count);
}

// t_string.c incrDecrCommand: the TTL stays.
Reply incr(Call& c) {
  Entry* e = c.node.lookup(c.key(), c.now);
  std::int64_t value = 0;
  if (e) {
    std::string* s = as_string(*e);
    if (!s) return wrongtype();
    const auto n = parse_int(*s);
    if (!n) return not_integer();
    value = *n;
  }
  if (would_overflow(value, 1)) return overflow();
  ++value;
  if (e) {
    e->value = std::to_string(value);
  } else {
    c.node.keyspace.keys[c.key()] = Entry{.value = std::to_string(value)};
  }
  return Reply::of(value);
}

// expire.c parseExtendedExpireArgumentsOrReply, expireGenericCommand and
// checkAlreadyExpired: a deadline at or before now deletes the key at once
// (while a key whose deadline is now still exists).
Reply pexpire(Call& c) {
  bool nx = false, xx = false, gt = false, lt = false;
  for (std::size_t j = 3; j < c.argv.size(); ++j) {
    const std::string& opt = c.argv[j];
    if (same(opt, "nx")) {
      nx = true;
    } else if (same(opt, "xx")) {
      xx = true;
    } else if (same(opt, "gt")) {
      gt = true;
    } else if (same(opt, "lt")) {
      lt = true;
    } else {
      return err(fmt::format("Unsupported option {}", opt));
    }
  }
  if ((nx && xx) || (nx && gt) || (nx && lt)) return err("NX and XX, GT or LT options at the same time are not compatible");
  if (gt && lt) return err("GT and LT options at the same time are not compatible");

  const auto n = parse_int(c.argv[2]);
  if (!n) return not_integer();
  if (*n > kMax - c.now) return expire_time_error("pexpire");
  const TimeMs when = *n + c.now;

  Entry* e = c.node.lookup(c.key(), c.now);
  if (!e) return Reply::of(0);
  const std::optional<TimeMs> current = e->deadline;
  if (nx && current) return Reply::of(0);
  if (xx && !current) return Reply::of(0);
  if (gt && (!current || when <= *current)) return Reply::of(0);
  if (lt && current && when >= *current) return Reply::of(0);

  if (when <= c.now) {
    c.node.keyspace.keys.erase(c.key());
  } else {
    e->deadline = when;
  }
  return Reply::of(1);
}

// expire.c ttlGenericCommand: -2 no key, -1 no deadline.
Reply pttl(Call& c) {
  Entry* e = c.node.lookup(c.key(), c.now);
  if (!e) return Reply::of(-2);
  if (!e->deadline) return Reply::of(-1);
  return Reply::of(std::max<std::int64_t>(*e->deadline - c.now, 0));
}

// The hash of `key` at `now`, or null (with `error` set when the key holds
// something else).
Hash* find_hash(Call& c, Reply& error) {
  Entry* e = c.node.lookup(c.key(), c.now);
  if (!e) return nullptr;
  Hash* h = as_hash(*e);
  if (!h) error = wrongtype();
  return h;
}

// t_hash.c hashTypeLookupWriteOrCreate.
Hash* find_or_create_hash(Call& c, Reply& error) {
  Entry* e = c.node.lookup(c.key(), c.now);
  if (!e) return &std::get<Hash>((c.node.keyspace.keys[c.key()] = Entry{.value = Hash{}}).value);
  Hash* h = as_hash(*e);
  if (!h) error = wrongtype();
  return h;
}

// t_hash.c hsetCommand: field-value pairs, replies the number of new fields.
Reply hset(Call& c) {
  if (c.argv.size() % 2 == 1) return arity_error("hset");
  Reply error;
  Hash* h = find_or_create_hash(c, error);
  if (!h) return error;
  std::int64_t created = 0;
  for (std::size_t j = 2; j < c.argv.size(); j += 2) {
    created += h->insert_or_assign(c.argv[j], c.argv[j + 1]).second ? 1 : 0;
  }
  return Reply::of(created);
}

Reply hget(Call& c) {
  Reply error;
  Hash* h = find_hash(c, error);
  if (!h) return error.is_error() ? error : Reply::nil();
  auto it = h->find(c.argv[2]);
  return it == h->end() ? Reply::nil() : Reply::bulk(it->second);
}

// t_hash.c hdelCommand: a hash never stays empty; its last field takes the
// key (and its TTL) with it.
Reply hdel(Call& c) {
  Reply error;
  Hash* h = find_hash(c, error);
  if (!h) return error.is_error() ? error : Reply::of(0);
  std::int64_t deleted = 0;
  for (std::size_t j = 2; j < c.argv.size(); ++j) {
    if (h->erase(c.argv[j]) == 0) continue;
    ++deleted;
    if (h->empty()) {
      c.node.keyspace.keys.erase(c.key());
      break;
    }
  }
  return Reply::of(deleted);
}

Reply hexists(Call& c) {
  Reply error;
  Hash* h = find_hash(c, error);
  if (!h) return error.is_error() ? error : Reply::of(0);
  return Reply::of(h->contains(c.argv[2]) ? 1 : 0);
}

// t_hash.c hincrbyCommand: the increment is checked before the key's type.
Reply hincrby(Call& c) {
  const auto incr = parse_int(c.argv[3]);
  if (!incr) return not_integer();
  Reply error;
  Hash* h = find_or_create_hash(c, error);
  if (!h) return error;
  std::int64_t value = 0;
  if (auto it = h->find(c.argv[2]); it != h->end()) {
    const auto n = parse_int(it->second);
    if (!n) return err("hash value is not an integer");
    value = *n;
  }
  if (would_overflow(value, *incr)) return overflow();
  value += *incr;
  (*h)[c.argv[2]] = std::to_string(value);
  return Reply::of(value);
}

Reply hlen(Call& c) {
  Reply error;
  Hash* h = find_hash(c, error);
  if (!h) return error.is_error() ? error : Reply::of(0);
  return Reply::of(static_cast<std::int64_t>(h->size()));
}

Reply publish(Call& c) { return Reply::of(c.node.publish(c.argv[1], c.argv[2], c.published)); }

// functions.c fcallCommandGeneric.
Reply fcall(Call& c) {
  auto it = c.node.scripts.find(c.argv[1]);
  if (it == c.node.scripts.end()) return err("Function not found");
  const auto numkeys = parse_int(c.argv[2]);
  if (!numkeys) return err("Bad number of keys provided");
  const auto args = static_cast<std::int64_t>(c.argv.size()) - 3;
  if (*numkeys > args) return err("Number of keys can't be greater than number of args");
  if (*numkeys < 0) return err("Number of keys can't be negative");
  const auto first_arg = c.argv.begin() + 3 + *numkeys;
  return c.node.run_script(it->second, c.now, c.published, std::vector<std::string>(c.argv.begin() + 3, first_arg),
                           std::vector<std::string>(first_arg, c.argv.end()));
}

struct Spec {
  // Redis's arity: n means exactly n arguments with the name, -n at least n.
  int arity;
  Reply (*run)(Call&);
  // Scripts may not call it (the command's noscript flag).
  bool noscript = false;
};

const std::map<std::string, Spec, std::less<>>& commands() {
  static const std::map<std::string, Spec, std::less<>> table = {
      {"get", {2, get}},         {"set", {-3, set}},        {"del", {-2, del}},
      {"exists", {-2, exists}},  {"incr", {2, incr}},       {"pexpire", {-3, pexpire}},
      {"pttl", {2, pttl}},       {"hset", {-4, hset}},      {"hget", {3, hget}},
      {"hdel", {-3, hdel}},      {"hexists", {3, hexists}}, {"hincrby", {4, hincrby}},
      {"hlen", {2, hlen}},       {"publish", {3, publish}}, {"fcall", {-3, fcall, true}},
  };
  return table;
}

// server.c commandCheckExistence: the name and the first arguments quoted,
// up to about 128 bytes, with CR and LF made spaces.
Reply unknown_command(const Command& argv) {
  std::string args;
  for (std::size_t i = 1; i < argv.size() && args.size() < 128; ++i) {
    args += fmt::format("'{}' ", std::string_view(argv[i]).substr(0, 128 - args.size()));
  }
  std::string message = fmt::format("ERR unknown command '{}', with args beginning with: {}",
                                    std::string_view(argv.empty() ? "" : argv[0]).substr(0, 128), args);
  std::replace(message.begin(), message.end(), '\r', ' ');
  std::replace(message.begin(), message.end(), '\n', ' ');
  return Reply::error(std::move(message));
}

}  // namespace

Entry* Node::lookup(std::string_view key, TimeMs now) {
  auto it = keyspace.keys.find(key);
  if (it == keyspace.keys.end()) return nullptr;
  if (it->second.deadline && now > *it->second.deadline) {
    keyspace.keys.erase(it);
    return nullptr;
  }
  return &it->second;
}

// server.c processCommand (lookup, then arity); inside a script,
// script.c scriptCall's own messages.
Reply Node::execute(const Command& argv, TimeMs now, std::vector<Message>& published, bool in_script) {
  std::string name;
  if (!argv.empty()) std::transform(argv[0].begin(), argv[0].end(), std::back_inserter(name), lower);
  const auto& table = commands();
  auto it = table.find(name);
  if (it == table.end()) return in_script ? err("Unknown Redis command called from script") : unknown_command(argv);
  const Spec& spec = it->second;
  const auto argc = static_cast<int>(argv.size());
  if ((spec.arity > 0 && spec.arity != argc) || argc < -spec.arity) {
    return in_script ? err("Wrong number of args calling Redis command from script") : arity_error(name);
  }
  if (in_script && spec.noscript) return err("This Redis command is not allowed from script");
  Call call{*this, argv, now, published};
  return spec.run(call);
}

}  // namespace zksim::redis::detail
