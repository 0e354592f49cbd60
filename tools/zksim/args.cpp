#include "args.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace zksim::cli {

std::string Args::text(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

std::int64_t parse_integer(const std::string& what, const std::string& text, std::int64_t lo, std::int64_t hi) {
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || v < lo || v > hi) {
    throw UsageError(fmt::format("{}: '{}' is not a whole number from {} to {}", what, text, lo, hi));
  }
  return v;
}

std::int64_t Args::integer(const std::string& name, std::int64_t fallback, std::int64_t lo, std::int64_t hi) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  return parse_integer(fmt::format("{} {}", command_, name), it->second, lo, hi);
}

std::uint64_t Args::unsigned64(const std::string& name, std::uint64_t fallback) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  const std::string& t = it->second;
  std::uint64_t v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size()) {
    throw UsageError(fmt::format("{} {}: '{}' is not a whole number from 0 to {}", command_, name, t, UINT64_MAX));
  }
  return v;
}

double Args::seconds(const std::string& name) const {
  const std::string& t = values_.at(name);
  double v = 0;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || p != t.data() + t.size() || !std::isfinite(v) || v <= 0 || v > kMaxSeconds) {
    throw UsageError(fmt::format("{} {}: '{}' is not a number of seconds from more than 0 to {} ({} days)", command_,
                                 name, t, kMaxSeconds, static_cast<int>(kMaxSeconds / 86'400)));
  }
  return v;
}

Args parse_args(const CommandSpec& spec, const std::vector<std::string>& argv) {
  Args a;
  a.raw = argv;
  a.command_ = fmt::format("zksim {}", spec.name);
  auto find = [&](const std::string& name) -> const OptionSpec* {
    for (const OptionSpec& o : spec.options) {
      if (o.name == name) return &o;
    }
    return nullptr;
  };
  const std::string see = fmt::format("(see 'zksim {} --help')", spec.name);
  bool options_done = false;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    const std::string& arg = argv[i];
    if (options_done || arg.size() < 2 || arg[0] != '-') {
      a.positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg == "--help" || arg == "-h") {
      a.help = true;
      continue;
    }
    std::string name = arg, value;
    bool inline_value = false;
    if (auto eq = arg.find('='); eq != std::string::npos && arg.starts_with("--")) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inline_value = true;
    }
    const OptionSpec* o = find(name);
    if (!o) throw UsageError(fmt::format("{}: unknown option '{}' {}", a.command_, name, see));
    if (a.values_.count(name)) throw UsageError(fmt::format("{}: {} given twice", a.command_, name));
    if (o->value.empty()) {
      if (inline_value) throw UsageError(fmt::format("{}: {} takes no value", a.command_, name));
    } else if (!inline_value) {
      if (i + 1 >= argv.size()) throw UsageError(fmt::format("{}: {} needs a value ({})", a.command_, name, o->value));
      value = argv[++i];
    }
    a.values_[name] = value;
  }
  if (a.help) return a;
  const int n = static_cast<int>(a.positional.size());
  if (n < spec.min_positional) {
    throw UsageError(fmt::format("{}: missing {} {}", a.command_, spec.positional, see));
  }
  if (spec.max_positional >= 0 && n > spec.max_positional) {
    throw UsageError(fmt::format("{}: unexpected argument '{}' {}", a.command_, a.positional[spec.max_positional], see));
  }
  return a;
}

std::string help_text(const CommandSpec& spec) {
  std::string out = fmt::format("Usage: zksim {}{}{}\n\n{}\n", spec.name, spec.options.empty() ? "" : " [OPTIONS]",
                                spec.positional.empty() ? std::string() : fmt::format(" {}", spec.positional), spec.summary);
  std::size_t width = 0;
  auto label = [](const OptionSpec& o) { return o.value.empty() ? o.name : o.name + " " + o.value; };
  for (const OptionSpec& o : spec.options) width = std::max(width, label(o).size());
  width = std::max<std::size_t>(width, 10);
  out += "\nOptions:\n";
  for (const OptionSpec& o : spec.options) {
    out += fmt::format("  {:<{}}  {}\n", label(o), width, o.help);
  }
  out += fmt::format("  {:<{}}  {}\n", "-h, --help", width, "print this help and exit");
  if (!spec.details.empty()) out += fmt::format("\n{}{}", spec.details, spec.details.ends_with('\n') ? "" : "\n");
  return out;
}

Shard parse_shard(const std::string& what, const std::string& text) {
  auto slash = text.find('/');
  const std::string bad = fmt::format("{}: '{}' is not a shard I/N (0 <= I < N, e.g. 0/4)", what, text);
  if (slash == std::string::npos) throw UsageError(bad);
  Shard s;
  try {
    s.count = parse_integer(what, text.substr(slash + 1), 1, 1'000'000);
    s.index = parse_integer(what, text.substr(0, slash), 0, s.count - 1);
  } catch (const UsageError&) {
    throw UsageError(bad);
  }
  return s;
}

}  // namespace zksim::cli
