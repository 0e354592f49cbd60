// What several subcommands share: the program's name for printed commands,
// JSON on stdout, fault classes by name, and the nemesis of a campaign.
#pragma once

#include "zksim/scenarios/workload.h"
#include "zksim/world.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace zksim::cli {

// argv[0] as the user typed it, for commands printed to be copied.
void set_program_name(std::string argv0);
const std::string& program_name();
// The program name quoted for a shell where needed.
std::string program_command();
// "<program> replay <file>", quoted for a shell where needed.
std::string replay_command(const std::string& file);

// Prints `j` indented, with a newline.
void print_json(const nlohmann::json& j);

// The fault classes, in FaultKind order ("drop-before-apply", ...).
std::vector<std::string> fault_class_names();
// "pause,crash" -> their FaultKind values; "none" -> none. Throws
// UsageError naming `what` on an unknown class, or on "none" in a list
// ("none,pause" would otherwise silently mean "pause").
// "a,b,c" -> {"a", "b", "c"}; "" -> {""}.
std::vector<std::string> split(const std::string& list);
std::vector<int> parse_fault_classes(const std::string& what, const std::string& list);
// The --client option (scenarios::parse_client_choice's grammar); throws
// UsageError naming `what` when it is not one.
scenarios::ClientChoice parse_clients(const std::string& what, const std::string& option);

// Checks, before a campaign runs, that `dir` can take the scenario files it
// may write: not empty, and either a directory or a path whose nearest
// existing part is a directory (the rest is made when a file is written),
// that directory writable. Writable is tried (a file made and removed
// there), since permission bits do not tell root the answer. Throws
// UsageError "<what>: ...", e.g. "zksim explore --out: not a directory: X".
void check_output_dir(const std::string& what, const std::string& dir);

// Checks, before a command does its work, that it will be able to write
// the file `path`: not empty, not a directory, in an existing directory
// where this user can make (or replace) it. Throws UsageError "<what>:
// cannot write X: <reason>". Nothing is left behind.
void check_output_file(const std::string& what, const std::string& path);
// Writes `text` to `path` (made or replaced); throws UsageError "<what>:
// cannot write X: <reason>" naming the system's reason.
void write_output_file(const std::string& what, const std::string& path, const std::string& text);

// The terminal progress line goes to stderr only when it is a terminal.
bool stderr_is_terminal();

}  // namespace zksim::cli
