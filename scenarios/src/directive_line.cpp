#include "directive_line.h"

#include <fmt/format.h>

#include <charconv>

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
