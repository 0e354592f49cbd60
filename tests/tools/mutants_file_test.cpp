// The mutants file (tools/mutants/mutants_file.h): parsing good input,
// every mistake reported as file:line:col: message, and mutating a source
// only where the original occurs exactly once.
#include "mutants_file.h"

#include <gtest/gtest.h>

namespace zksim::mutants {
namespace {

const std::vector<std::string> kRecipes{"lock", "election", "queue"};

const char* kGood = R"(# a comment
zksim-mutants 1

mutant lock-first-waits
operator negate-condition
recipes lock election
file recipes/src/lock.cpp
original     if (me == 0) return std::nullopt;
original     return all[me - 1].name;
replacement     return all[0].name;
expect killed

  # indented comment
mutant queue-gap
operator drop-delete
recipes queue
file recipes/src/queue.cpp
original a
replacement
expect gap: no campaign puts while nobody takes
)";

std::string error_of(const std::string& text) {
  MutantsError e;
  auto m = parse_mutants(text, "m.txt", kRecipes, &e);
  return m ? "" : e.text();
}

// `kGood` with its first occurrence of `from` replaced by `to`.
std::string good_with(const std::string& from, const std::string& to) {
  std::string s = kGood;
  s.replace(s.find(from), from.size(), to);
  return s;
}

TEST(MutantsFile, ParsesEveryDirective) {
  MutantsError e;
  auto all = parse_mutants(kGood, "m.txt", kRecipes, &e);
  ASSERT_TRUE(all) << e.text();
  ASSERT_EQ(all->size(), 2u);
  const Mutant& m = (*all)[0];
  EXPECT_EQ(m.id, "lock-first-waits");
  EXPECT_EQ(m.op, "negate-condition");
  EXPECT_EQ(m.recipes, (std::vector<std::string>{"lock", "election"}));
  EXPECT_EQ(m.file, "recipes/src/lock.cpp");
  EXPECT_EQ(m.original, "    if (me == 0) return std::nullopt;\n    return all[me - 1].name;");
  EXPECT_EQ(m.replacement, "    return all[0].name;");
  EXPECT_EQ(m.expect, Mutant::Expect::Killed);
  EXPECT_EQ(m.line, 4);
  EXPECT_EQ(m.original_line, 8);
  EXPECT_EQ((*all)[1].expect, Mutant::Expect::Gap);
  EXPECT_EQ((*all)[1].reason, "no campaign puts while nobody takes");
  EXPECT_EQ((*all)[1].replacement, "");  // a bare `replacement`: the original is deleted
}

TEST(MutantsFile, ReportsEveryMistakeWithItsPlace) {
  EXPECT_EQ(error_of(""), "m.txt:1:1: empty file: expected 'zksim-mutants 1'");
  EXPECT_EQ(error_of("mutant x\n"), "m.txt:1:1: expected 'zksim-mutants 1' first");
  EXPECT_EQ(error_of("zksim-mutants 2\n"), "m.txt:1:15: unsupported version (this reader knows version 1)");
  EXPECT_EQ(error_of(good_with("operator negate-condition", "operator negate")),
            "m.txt:5:10: unknown operator 'negate'");
  EXPECT_EQ(error_of(good_with("recipes lock election", "recipes lock flawed/herd-lock")),
            "m.txt:6:14: unknown recipe 'flawed/herd-lock'");
  EXPECT_EQ(error_of(good_with("file recipes/src/lock.cpp", "file sim/src/world.cpp")),
            "m.txt:7:6: the file must be under recipes/src/");
  EXPECT_EQ(error_of(good_with("expect killed", "expect dead")),
            "m.txt:11:8: expected 'killed', 'equivalent: REASON' or 'gap: REASON'");
  EXPECT_EQ(error_of(good_with("expect killed", "expect equivalent:")), "m.txt:11:8: 'equivalent:' needs a reason");
  EXPECT_EQ(error_of(good_with("mutant queue-gap", "mutant lock-first-waits")),
            "m.txt:14:8: mutant 'lock-first-waits' given twice");
  EXPECT_EQ(error_of(good_with("mutant queue-gap", "mutant Queue_Gap")),
            "m.txt:14:8: bad id 'Queue_Gap' (use a-z, 0-9 and -)");
  EXPECT_EQ(error_of(good_with("operator negate-condition\n", "")), "m.txt:4:1: mutant 'lock-first-waits' has no 'operator' line");
  EXPECT_EQ(error_of(good_with("expect gap: no campaign puts while nobody takes\n", "")),
            "m.txt:14:1: mutant 'queue-gap' has no 'expect' line");
  EXPECT_EQ(error_of(good_with("replacement     return all[0].name;", "replacement     return all[me - 1].name;\n"
                                                                      "replacement     sic")),
            "");
  EXPECT_EQ(error_of(good_with("original a\nreplacement\n", "original a\nreplacement a\n")),
            "m.txt:14:1: mutant 'queue-gap' changes nothing (replacement equals original)");
  EXPECT_EQ(error_of(good_with("recipes lock election", "recipes lock election\nrecipes lock")),
            "m.txt:7:1: 'recipes' given twice");
  EXPECT_EQ(error_of(good_with("# a comment\n", "# a comment\nfile recipes/src/lock.cpp\n")),
            "m.txt:2:1: expected 'zksim-mutants 1' first");
  EXPECT_EQ(error_of(good_with("  # indented comment", "colour blue")), "m.txt:13:1: unknown directive 'colour'");
  EXPECT_EQ(error_of(good_with("original a\n", "replacement b\noriginal a\n")),
            "m.txt:18:1: 'replacement' before 'original'");
  EXPECT_EQ(error_of(good_with("# a comment", "# a \x01 comment")), "m.txt:1:5: control byte \\x01");
  MutantsError e;
  EXPECT_FALSE(load_mutants("/nonexistent/mutants.txt", kRecipes, &e));
  EXPECT_EQ(e.text(), "/nonexistent/mutants.txt:0:0: cannot read the file");
}

TEST(MutantsFile, MutatesOnlyAnOriginalThatOccursExactlyOnce) {
  auto all = parse_mutants(kGood, "m.txt", kRecipes, nullptr);
  ASSERT_TRUE(all);
  const Mutant& m = (*all)[0];
  const std::string source = "x\n    if (me == 0) return std::nullopt;\n    return all[me - 1].name;\ny\n";
  MutantsError e;
  auto mutated = mutate(m, source, "m.txt", &e);
  ASSERT_TRUE(mutated) << e.text();
  EXPECT_EQ(*mutated, "x\n    return all[0].name;\ny\n");
  EXPECT_FALSE(mutate(m, "x\n", "m.txt", &e));
  EXPECT_EQ(e.text(), "m.txt:8:1: mutant 'lock-first-waits': the original occurs 0 times in recipes/src/lock.cpp "
                      "(must be exactly once)");
  EXPECT_FALSE(mutate(m, source + source, "m.txt", &e));
  EXPECT_EQ(e.text(), "m.txt:8:1: mutant 'lock-first-waits': the original occurs 2 times in recipes/src/lock.cpp "
                      "(must be exactly once)");
}

}  // namespace
}  // namespace zksim::mutants
