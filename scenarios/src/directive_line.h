// The line grammar scenario files share (scenario.cpp, lease_scenario.cpp):
// words split by blanks, '#' to the end of a line a comment, and errors
// that say which word is wrong.
#pragma once

#include "zksim/scenarios/scenario.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zksim::scenarios::detail {

struct Word {
  std::string text;
  int col = 0;  // 1-based
};

// The words of one line, up to its comment.
std::vector<Word> words_of(const std::string& line);

// `text` with every control byte shown as \xNN, so a message stays one
// printable line (a NUL would end it where C strings are printed).
std::string escaped(const std::string& text);

// The comment of a line that has no words ("# text" -> "text"), if any.
bool comment_of(const std::string& line, std::string* text);

// The text of the file at `path`; nullopt with `error` at 0:0 when it
// cannot be read.
std::optional<std::string> file_text(const std::string& path, ParseError* error);

// How a run replays and what it should give, as both formats write it:
// "seed S" and/or "decisions ..." lines (32 a line; a lone "decisions"
// when there is neither), then "expect pass" or "expect violation P".
std::string replay_lines(const std::optional<std::uint64_t>& seed, const std::vector<std::uint32_t>& decisions,
                         const std::optional<std::string>& expect_violation);

// The `expect` line ends a scenario (both writers put it last): a file read
// to its end without one was cut off, and a directive after it does not
// belong to the scenario.
class ExpectEnds {
 public:
  // "" or why directive `w`, on line `n`, cannot stand where it does.
  std::string see(const std::vector<Word>& w, int n);
  // "" or why the file, read to its end, is not a whole scenario.
  std::string at_end() const;

 private:
  int expect_line_ = 0;
};

// One directive's words, and the column of its error. Each check returns
// "" when it passes, else the message, with col() set to the word at fault.
class DirectiveLine {
 public:
  explicit DirectiveLine(const std::vector<Word>& words) : w_(words) {}
  int col() const { return col_; }

 protected:
  // `message`, placed at word `word` (past the end: just after the line).
  std::string at(std::size_t word, std::string message);
  // "" when the line has no words past `used`.
  std::string done(std::size_t used);
  // Word `word` as an integer in [lo, hi].
  std::string integer(std::size_t word, std::int64_t& v, std::int64_t lo, std::int64_t hi);
  // Word `word` as an unsigned 64-bit seed.
  std::string seed(std::size_t word, std::uint64_t& v);
  // "decisions N ...": appended to `out`.
  std::string decisions(std::vector<std::uint32_t>& out);
  // "expect pass" (nullopt) or "expect violation P", P one of `known`.
  std::string expect(std::optional<std::string>& out, const std::vector<std::string>& known);

  const std::vector<Word>& w_;
  int col_ = 1;
};

}  // namespace zksim::scenarios::detail
