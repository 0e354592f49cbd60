// The subcommands: each has a spec (options and help) and a main that
// returns the exit code (0 as expected / nothing found, 1 a violation or an
// unexpected verdict) or throws UsageError (main prints it, exits 2).
#pragma once

#include "args.h"

#include <vector>

namespace zksim::cli {

struct Command {
  CommandSpec (*spec)();
  int (*main)(const Args& args);
};

CommandSpec run_spec();
int run_main(const Args& args);
CommandSpec explore_spec();
int explore_main(const Args& args);
CommandSpec merge_spec();
int merge_main(const Args& args);
CommandSpec replay_spec();
int replay_main(const Args& args);
CommandSpec timeline_spec();
int timeline_main(const Args& args);
CommandSpec list_spec();
int list_main(const Args& args);
CommandSpec matrix_spec();
int matrix_main(const Args& args);
CommandSpec serve_spec();
int serve_main(const Args& args);
CommandSpec lease_spec();
int lease_main(const Args& args);

// In the order `zksim --help` lists them.
inline const std::vector<Command>& commands() {
  static const std::vector<Command> all{
      {matrix_spec, matrix_main},   {run_spec, run_main},           {explore_spec, explore_main},
      {merge_spec, merge_main},     {replay_spec, replay_main},     {timeline_spec, timeline_main},
      {list_spec, list_main},       {serve_spec, serve_main},       {lease_spec, lease_main}};
  return all;
}

}  // namespace zksim::cli
