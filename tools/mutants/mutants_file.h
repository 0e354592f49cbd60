// The mutants file (tests/mutants/mutants.txt): mutants of the correct
// recipes, each one textual change to one source file, for measuring how
// many mutants the harness kills (a mutation benchmark, as mull or PIT do).
// Plain text, one directive per line, '#' starts a comment line, versioned:
//
//   zksim-mutants 1
//
//   mutant lock-first-waits           # id: [a-z0-9-], unique
//   operator negate-condition         # one of mutant_operators()
//   recipes lock election             # the correct recipes it changes
//   file recipes/src/lock.cpp         # relative to the source root
//   original     if (me == 0) return std::nullopt;
//   replacement     if (me != 0) return std::nullopt;
//   expect killed
//
// `expect` is `killed`, `equivalent: WHY` (no run can tell the mutant from
// the recipe) or `gap: WHY` (a run could, but no campaign or property does
// yet), WHY being the rest of the line. `original` and `replacement` take
// the rest of their line verbatim after one space (a bare `replacement`:
// the original is deleted); repeated, their lines join with newlines. The original must
// occur exactly once in the file, so that a mutant cannot go stale when the
// recipe changes. Errors are "file:line:col: message".
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace zksim::mutants {

struct Mutant {
  std::string id;
  std::string op;                    // one of mutant_operators()
  std::vector<std::string> recipes;  // names from recipe_names(), correct ones
  std::string file;                  // e.g. recipes/src/lock.cpp
  std::string original, replacement;
  // What the benchmark should find: killed, or why the mutant survives.
  enum class Expect { Killed, Equivalent, Gap } expect = Expect::Killed;
  std::string reason;                // Equivalent, Gap: why
  int line = 0;                      // the `mutant` line
  int original_line = 0;             // the first `original` line
};

// The operators a mutant may name, each a generic change of recipe code.
const std::vector<std::string>& mutant_operators();

struct MutantsError {
  std::string file;
  int line = 0, col = 0;
  std::string message;
  std::string text() const;  // "file:line:col: message"
};

// Parses `text` (named `file` in errors); `recipes` are the names a
// `recipes` line may use.
std::optional<std::vector<Mutant>> parse_mutants(const std::string& text, const std::string& file,
                                                 const std::vector<std::string>& recipes, MutantsError* error);
// Reads and parses a file; a missing file is an error at 0:0.
std::optional<std::vector<Mutant>> load_mutants(const std::string& path, const std::vector<std::string>& recipes,
                                                MutantsError* error);

// `source` (the text of m.file) with the mutant's change made, or nullopt
// with the reason in `error` (at the mutant's `original` line of
// `mutants_file`) when the original does not occur exactly once.
std::optional<std::string> mutate(const Mutant& m, const std::string& source, const std::string& mutants_file,
                                  MutantsError* error);

}  // namespace zksim::mutants
