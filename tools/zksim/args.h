// Command-line options for the zksim subcommands: a spec per command (its
// options, positional arguments and help), a parser that turns argv into
// checked values, and UsageError, the one-line message every mistake gets
// (main prints it and exits 2).
//
// Hand-written rather than Debian's CLI11 2.1: that one accepts "-1" and
// out-of-range numbers for unsigned options silently, reports an unknown
// subcommand as "A subcommand is required", and its range messages print
// 300-digit bounds; what the CLI needs here is small.
#pragma once

#include "zksim/scenarios/campaign.h"

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace zksim::cli {

// A mistake in the command line or the input: one line, no trailing newline.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OptionSpec {
  std::string name;   // "--runs"
  std::string value;  // "N"; empty: a flag without a value
  std::string help;
};

struct CommandSpec {
  std::string name;        // "explore"
  std::string summary;     // one line, for `zksim --help`
  std::string positional;  // "FILE|DIR..." for the usage line; empty: none
  int min_positional = 0, max_positional = 0;  // max -1: any number
  std::vector<OptionSpec> options;
  std::string details;     // paragraphs after the options in --help
};

// The parsed command line of one subcommand. Typed getters check the value
// and throw UsageError naming the option.
class Args {
 public:
  bool help = false;  // --help or -h was given: print help, exit 0
  std::vector<std::string> positional;

  bool has(const std::string& name) const { return values_.count(name) != 0; }
  bool flag(const std::string& name) const { return has(name); }
  std::string text(const std::string& name, const std::string& fallback) const;
  // A whole number in [lo, hi].
  std::int64_t integer(const std::string& name, std::int64_t fallback, std::int64_t lo, std::int64_t hi) const;
  std::uint64_t unsigned64(const std::string& name, std::uint64_t fallback) const;
  // A positive number of seconds (decimals allowed), at most kMaxSeconds.
  double seconds(const std::string& name) const;
  // 115 days: longer than any campaign anyone waits for, and still exact
  // as a count of milliseconds.
  static constexpr double kMaxSeconds = 10'000'000;

  // The arguments as given, for passing most of them on to worker processes.
  std::vector<std::string> raw;

 private:
  friend Args parse_args(const CommandSpec&, const std::vector<std::string>&);
  std::string command_;
  std::map<std::string, std::string> values_;
};

// Parses the arguments after the subcommand name. Accepts "--opt value" and
// "--opt=value"; "--" ends the options. REQUIRES: nothing; throws
// UsageError on an unknown or repeated option, a missing value, or a wrong
// number of positional arguments (unless --help was given).
Args parse_args(const CommandSpec& spec, const std::vector<std::string>& argv);

// `zksim <name> --help`.
std::string help_text(const CommandSpec& spec);

// Checked conversions for values that are not options (shards, lists).
std::int64_t parse_integer(const std::string& what, const std::string& text, std::int64_t lo, std::int64_t hi);

// "I/N", 0 <= I < N: every N-th run index, starting at I.
using scenarios::Shard;
Shard parse_shard(const std::string& what, const std::string& text);

}  // namespace zksim::cli
