// zksim-mutate MUTANTS_FILE ID SOURCE_ROOT OUT: writes the mutant ID's copy
// of its source file (under SOURCE_ROOT) to OUT, with the mutant's id
// appended as zksim::mutants::kMutantId for the runner. Exits 2 with
// "file:line:col: message" when the file is bad, the mutant unknown, or its
// original does not occur exactly once (a stale mutant).
// zksim-mutate MUTANTS_FILE --check SOURCE_ROOT: the same checks for every
// mutant, writing nothing (a build that samples the mutants compiles only
// some, and must still find a stale one).
#include "mutants_file.h"
#include "zksim/scenarios/workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <optional>
#include <sstream>

namespace {

std::vector<std::string> correct_recipes() {
  std::vector<std::string> out;
  for (const std::string& r : zksim::scenarios::recipe_names()) {
    if (!zksim::scenarios::recipe_is_flawed(r)) out.push_back(r);
  }
  return out;
}

// The mutant's copy of its source, or nullopt after printing why not.
std::optional<std::string> mutated_source(const zksim::mutants::Mutant& m, const std::string& file,
                                          const std::string& root) {
  using namespace zksim::mutants;
  std::ifstream in(root + "/" + m.file, std::ios::binary);
  if (!in) {
    fmt::print(stderr, "{}:{}:1: mutant '{}': cannot read {}\n", file, m.line, m.id, m.file);
    return std::nullopt;
  }
  std::ostringstream source;
  source << in.rdbuf();
  MutantsError error;
  auto mutated = mutate(m, source.str(), file, &error);
  if (!mutated) fmt::print(stderr, "{}\n", error.text());
  return mutated;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace zksim::mutants;
  const bool check = argc == 4 && std::string_view(argv[2]) == "--check";
  if (argc != 5 && !check) {
    fmt::print(stderr, "usage: zksim-mutate MUTANTS_FILE ID SOURCE_ROOT OUT\n"
                       "       zksim-mutate MUTANTS_FILE --check SOURCE_ROOT\n");
    return 2;
  }
  const std::string file = argv[1], id = argv[2], root = argv[3];
  MutantsError error;
  auto all = load_mutants(file, correct_recipes(), &error);
  if (!all) {
    fmt::print(stderr, "{}\n", error.text());
    return 2;
  }
  if (check) {
    int bad = 0;
    for (const Mutant& m : *all) bad += mutated_source(m, file, root) ? 0 : 1;
    return bad ? 2 : 0;
  }
  const std::string out_path = argv[4];
  auto m = std::find_if(all->begin(), all->end(), [&](const Mutant& x) { return x.id == id; });
  if (m == all->end()) {
    fmt::print(stderr, "{}:0:0: no mutant '{}'\n", file, id);
    return 2;
  }
  auto mutated = mutated_source(*m, file, root);
  if (!mutated) return 2;
  std::ofstream out(out_path, std::ios::binary);
  // Diagnostics name the recipe's own file (lines after a change of line
  // count are off by that much).
  out << fmt::format("#line 1 \"{}/{}\"\n", root, m->file) << *mutated
      << fmt::format("\nnamespace zksim::mutants {{\nextern const char* const kMutantId;\nconst char* const kMutantId = \"{}\";\n}}\n", id);
  out.close();
  if (!out) {
    fmt::print(stderr, "zksim-mutate: cannot write {}\n", out_path);
    return 2;
  }
  return 0;
}
