#include "directive_line.h"

#include <fmt/format.h>

#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>

namespace zksim::scenarios::detail {

std::vector<Word> words_of(const std::string& line) {
  std::vector<Word> out;
  std::size_t i = 0;
  while (i < line.size()) {
    if (line[i] == '#') break;
    if (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t' && line[j] != '\r' && line[j] != '#') ++j;
    out.push_back(Word{line.substr(i, j - i), static_cast<int>(i) + 1});
    i = j;
  }
  return out;
}

std::string escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    const auto b = static_cast<unsigned char>(c);
    out += b < 0x20 || b == 0x7f ? fmt::format("\\x{:02x}", b) : std::string(1, c);
  }
  return out;
}

bool comment_of(const std::string& line, std::string* text) {
  const std::size_t hash = line.find('#');
  if (hash == std::string::npos) return false;
  *text = line.substr(hash + 1 + (line.size() > hash + 1 && line[hash + 1] == ' '));
  return true;
}

std::optional<std::string> file_text(const std::string& path, ParseError* error) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    if (error) *error = ParseError{path, 0, 0, "cannot read the file"};
    return std::nullopt;
  }
  std::stringstream buf;
  buf << f.rdbuf();
  return buf.str();
}

std::string replay_lines(const std::optional<std::uint64_t>& seed, const std::vector<std::uint32_t>& decisions,
                         const std::optional<std::string>& expect_violation) {
  std::string out;
  if (seed) out += fmt::format("seed {}\n", *seed);
  if (!seed && decisions.empty()) out += "decisions\n";
  for (std::size_t i = 0; i < decisions.size(); i += 32) {
    out += "decisions";
    for (std::size_t j = i; j < std::min(decisions.size(), i + 32); ++j) out += fmt::format(" {}", decisions[j]);
    out += "\n";
  }
  out += expect_violation ? fmt::format("expect violation {}\n", *expect_violation) : "expect pass\n";
  return out;
}

std::string ExpectEnds::see(const std::vector<Word>& w, int n) {
  if (expect_line_ && w[0].text != "expect") {  // a second expect is "given twice"
    return fmt::format("'{}' after the 'expect' line (line {}), which ends a scenario", w[0].text, expect_line_);
  }
  if (w[0].text == "expect") expect_line_ = n;
  return {};
}

std::string ExpectEnds::at_end() const {
  if (expect_line_) return {};
  return "the file ends without an 'expect' line (cut off?): a scenario ends with 'expect pass' or 'expect violation "
         "PROPERTY'";
}

std::string DirectiveLine::decisions(std::vector<std::uint32_t>& out) {
  for (std::size_t i = 1; i < w_.size(); ++i) {
    std::int64_t x = 0;
    if (auto e = integer(i, x, 0, UINT32_MAX); !e.empty()) return e;
    out.push_back(static_cast<std::uint32_t>(x));
  }
  return {};
}

std::string DirectiveLine::expect(std::optional<std::string>& out, const std::vector<std::string>& known) {
  if (w_.size() >= 2 && w_[1].text == "pass") {
    out.reset();
    return done(2);
  }
  if (w_.size() >= 2 && w_[1].text == "violation") {
    if (w_.size() < 3) return at(2, "missing property name after 'violation'");
    if (std::find(known.begin(), known.end(), w_[2].text) == known.end()) {
      return at(2, fmt::format("unknown property '{}' (known: {})", w_[2].text, fmt::join(known, ", ")));
    }
    out = w_[2].text;
    return done(3);
  }
  return at(1, "expected 'pass' or 'violation <property>'");
}

std::string DirectiveLine::at(std::size_t word, std::string message) {
  col_ = word < w_.size() ? w_[word].col : (w_.back().col + static_cast<int>(w_.back().text.size()) + 1);
  return message;
}

std::string DirectiveLine::done(std::size_t used) {
  if (w_.size() > used) return at(used, fmt::format("unexpected '{}'", w_[used].text));
  return {};
}

std::string DirectiveLine::integer(std::size_t word, std::int64_t& v, std::int64_t lo, std::int64_t hi) {
  if (word >= w_.size()) return at(word, "missing number");
  const std::string& t = w_[word].text;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size() || v < lo || v > hi) {
    return at(word, fmt::format("'{}' is not a number from {} to {}", t, lo, hi));
  }
  return {};
}

std::string DirectiveLine::seed(std::size_t word, std::uint64_t& v) {
  if (word >= w_.size()) return at(word, "missing seed");
  const std::string& t = w_[word].text;
  auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (ec != std::errc() || p != t.data() + t.size()) {
    return at(word, fmt::format("'{}' is not a seed (an unsigned 64-bit number)", t));
  }
  return {};
}

}  // namespace zksim::scenarios::detail
