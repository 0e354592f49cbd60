// zksim: the command-line program. Dispatches to a subcommand; every
// mistake in the input is one line on stderr and exit status 2.
#include "commands.h"
#include "campaign.h"
#include "common.h"
#include "zksim/scenarios/plugin.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string>

namespace {

using zksim::cli::commands;

std::string usage() {
  std::string out =
      "Usage: zksim COMMAND [OPTIONS]\n\n"
      "A deterministic ZooKeeper simulator: explores coordination recipes under\n"
      "generated schedules and faults, and replays what it finds.\n\nCommands:\n";
  for (const auto& c : commands()) {
    auto spec = c.spec();
    out += fmt::format("  {:<10}{}\n", spec.name, spec.summary);
  }
  out += "\n'zksim COMMAND --help' describes a command. Exit status: 0 as expected,\n"
         "1 a violation (or a verdict other than the expected one), 2 bad input.\n";
  return out;
}

int dispatch(int argc, char** argv) {
  zksim::cli::set_program_name(argc > 0 ? argv[0] : "zksim");
  if (argc < 2) throw zksim::cli::UsageError("zksim: missing command (see 'zksim --help')");
  const std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  for (const auto& c : commands()) {
    zksim::cli::CommandSpec spec = c.spec();
    if (spec.name != name) continue;
    // Every command takes a plugin's recipes (zksim/scenarios/plugin.h),
    // loaded before it runs (its child processes, forks of it, have them).
    spec.options.push_back({"--plugin", "FILE", "load the recipes of a plugin (a shared library, zksim/scenarios/plugin.h) first"});
    zksim::cli::Args args = zksim::cli::parse_args(spec, std::vector<std::string>(argv + 2, argv + argc));
    if (args.help) {
      std::fputs(zksim::cli::help_text(spec).c_str(), stdout);
      return 0;
    }
    if (args.has("--plugin")) {
      if (std::string why = zksim::scenarios::load_plugin(args.text("--plugin", "")); !why.empty()) {
        throw zksim::cli::UsageError(fmt::format("zksim {} --plugin: {}", name, why));
      }
    }
    return c.main(args);
  }
  throw zksim::cli::UsageError(fmt::format("zksim: unknown command '{}' (see 'zksim --help')", name));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return dispatch(argc, argv);
  } catch (const zksim::cli::UsageError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  } catch (const zksim::cli::KilledError& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "%s\n", e.what());
    return zksim::cli::kKilledStatus;
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "zksim: error: %s\n", e.what());
    return 2;
  }
}
