#include "mutants_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace zksim::mutants {

const std::vector<std::string>& mutant_operators() {
  static const std::vector<std::string> ops{
      "drop-relist",             // drop the re-list after a wait
      "watch-wrong-node",        // watch another node than the one that matters
      "ignore-connection-loss",  // treat ConnectionLoss as success or move on
      "unknown-as-failure",      // treat an unknown outcome (ConnectionLoss) as a failure
      "skip-rearm-watch",        // do not set a watch again, or drop one
      "compare-names",           // order by names instead of sequence numbers
      "skip-session-check",      // ignore what the session says after a reconnect
      "drop-delete",             // drop a delete on release or cleanup
      "negate-condition",        // negate a condition
      "off-by-one",              // one too many or too few
      "wrong-order",             // swap two steps, or the order of a sort
      "drop-check",              // drop a check of the input
      "drop-guard",              // drop a lock that serializes the steps
      "skip-sync",               // read without the sync that catches the server up
  };
  return ops;
}

std::string MutantsError::text() const { return fmt::format("{}:{}:{}: {}", file, line, col, message); }

namespace {

struct Failure {
  int col;
  std::string message;
  int line = 0;  // 0: the line being read
};

bool valid_id(const std::string& id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
         });
}

// Words of `s` separated by spaces, each with its 1-based column.
std::vector<std::pair<std::string, int>> words(const std::string& s, std::size_t from) {
  std::vector<std::pair<std::string, int>> out;
  std::size_t i = from;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    if (i >= s.size() || s[i] == '#') break;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    out.emplace_back(s.substr(i, j - i), static_cast<int>(i) + 1);
    i = j;
  }
  return out;
}

class Parser {
 public:
  Parser(const std::string& file, const std::vector<std::string>& recipes) : file_(file), recipes_(recipes) {}

  std::optional<std::vector<Mutant>> parse(const std::string& text, MutantsError* error) {
    std::istringstream in(text);
    std::string line;
    int n = 0;
    bool header = false;
    while (std::getline(in, line)) {
      ++n;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (auto bad = std::find_if(line.begin(), line.end(), [](char c) {
            return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f;
          });
          bad != line.end()) {
        return fail(error, n, static_cast<int>(bad - line.begin()) + 1,
                    fmt::format("control byte \\x{:02X}", static_cast<unsigned char>(*bad)));
      }
      const std::size_t first = line.find_first_not_of(" \t");
      if (first == std::string::npos || line[first] == '#') continue;
      if (first != 0 && !entry_) return fail(error, n, 1, "indented line outside a mutant");
      const std::size_t key_end = std::min(line.find_first_of(" \t", first), line.size());
      const std::string key = line.substr(first, key_end - first);
      if (!header) {
        if (key != "zksim-mutants") return fail(error, n, 1, "expected 'zksim-mutants 1' first");
        auto w = words(line, key_end);
        if (w.size() != 1 || w[0].first != "1") {
          return fail(error, n, w.empty() ? static_cast<int>(key_end) + 1 : w[0].second,
                      "unsupported version (this reader knows version 1)");
        }
        header = true;
        continue;
      }
      std::optional<Failure> f = directive(key, line, key_end, n, static_cast<int>(first) + 1);
      if (f) return fail(error, f->line ? f->line : n, f->col, f->message);
    }
    if (!header) return fail(error, n == 0 ? 1 : n, 1, "empty file: expected 'zksim-mutants 1'");
    if (std::optional<Failure> f = finish(); f) return fail(error, f->line, f->col, f->message);
    return std::move(out_);
  }

 private:
  std::optional<std::vector<Mutant>> fail(MutantsError* error, int line, int col, std::string message) {
    if (error) *error = MutantsError{file_, line, col, std::move(message)};
    return std::nullopt;
  }

  // One directive; a failure names its column.
  std::optional<Failure> directive(const std::string& key, const std::string& line, std::size_t key_end, int n,
                                   int key_col) {
    const int value_col = static_cast<int>(key_end) + 2;
    if (key == "original" || key == "replacement") {
      if (!entry_) return Failure{key_col, fmt::format("'{}' outside a mutant", key)};
      if (key == "replacement" && !entry_->original_line) return Failure{key_col, "'replacement' before 'original'"};
      if (key == "original" && replacement_seen_) return Failure{key_col, "'original' after 'replacement'"};
      std::string text = key_end < line.size() ? line.substr(key_end + 1) : "";
      std::string& to = key == "original" ? entry_->original : entry_->replacement;
      bool& seen = key == "original" ? original_seen_ : replacement_seen_;
      if (seen) to += '\n';
      to += text;
      seen = true;
      if (key == "original" && !entry_->original_line) entry_->original_line = n;
      return std::nullopt;
    }
    if (key == "expect") {
      if (!entry_) return Failure{key_col, "'expect' outside a mutant"};
      if (!seen_.insert(key).second) return Failure{key_col, "'expect' given twice"};
      const std::size_t from = line.find_first_not_of(" \t", key_end);
      std::string value = from == std::string::npos ? "" : line.substr(from);
      if (value == "killed") return std::nullopt;
      for (auto [prefix, kind] : {std::pair{"equivalent:", Mutant::Expect::Equivalent},
                                  std::pair{"gap:", Mutant::Expect::Gap}}) {
        if (value.starts_with(prefix)) {
          std::string reason = value.substr(std::string(prefix).size());
          reason.erase(0, reason.find_first_not_of(" \t"));
          if (reason.empty()) return Failure{value_col, fmt::format("'{}' needs a reason", prefix)};
          entry_->expect = kind;
          entry_->reason = reason;
          return std::nullopt;
        }
      }
      return Failure{value_col, "expected 'killed', 'equivalent: REASON' or 'gap: REASON'"};
    }
    auto w = words(line, key_end);
    if (key == "mutant") {
      if (std::optional<Failure> f = finish(); f) return f;
      if (w.size() != 1) return Failure{value_col, "expected 'mutant ID'"};
      if (!valid_id(w[0].first)) return Failure{w[0].second, fmt::format("bad id '{}' (use a-z, 0-9 and -)", w[0].first)};
      if (!ids_.insert(w[0].first).second) return Failure{w[0].second, fmt::format("mutant '{}' given twice", w[0].first)};
      entry_ = Mutant{};
      entry_->id = w[0].first;
      entry_->line = n;
      entry_line_ = n;
      seen_.clear();
      original_seen_ = replacement_seen_ = false;
      return std::nullopt;
    }
    if (key != "operator" && key != "recipes" && key != "file") {
      return Failure{key_col, fmt::format("unknown directive '{}'", key)};
    }
    if (!entry_) return Failure{key_col, fmt::format("'{}' outside a mutant", key)};
    if (!seen_.insert(key).second) return Failure{key_col, fmt::format("'{}' given twice", key)};
    if (w.empty()) return Failure{value_col, fmt::format("'{}' needs a value", key)};
    if (key == "recipes") {
      for (const auto& [r, col] : w) {
        if (std::find(recipes_.begin(), recipes_.end(), r) == recipes_.end()) {
          return Failure{col, fmt::format("unknown recipe '{}'", r)};
        }
        entry_->recipes.push_back(r);
      }
      return std::nullopt;
    }
    if (w.size() != 1) return Failure{w[1].second, fmt::format("'{}' takes one value", key)};
    if (key == "operator") {
      const auto& ops = mutant_operators();
      if (std::find(ops.begin(), ops.end(), w[0].first) == ops.end()) {
        return Failure{w[0].second, fmt::format("unknown operator '{}'", w[0].first)};
      }
      entry_->op = w[0].first;
    } else {
      if (!w[0].first.starts_with("recipes/src/") || w[0].first.find("..") != std::string::npos) {
        return Failure{w[0].second, "the file must be under recipes/src/"};
      }
      entry_->file = w[0].first;
    }
    return std::nullopt;
  }

  // Ends the open entry, if any; a failure is at its `mutant` line.
  std::optional<Failure> finish() {
    std::optional<Failure> f = incomplete();
    if (f) f->line = entry_line_;
    return f;
  }

  std::optional<Failure> incomplete() {
    if (!entry_) return std::nullopt;
    for (const char* k : {"operator", "recipes", "file", "expect"}) {
      if (!seen_.count(k)) return Failure{1, fmt::format("mutant '{}' has no '{}' line", entry_->id, k)};
    }
    if (!original_seen_) return Failure{1, fmt::format("mutant '{}' has no 'original' line", entry_->id)};
    if (!replacement_seen_) return Failure{1, fmt::format("mutant '{}' has no 'replacement' line", entry_->id)};
    if (entry_->original == entry_->replacement) {
      return Failure{1, fmt::format("mutant '{}' changes nothing (replacement equals original)", entry_->id)};
    }
    out_.push_back(std::move(*entry_));
    entry_.reset();
    return std::nullopt;
  }

  std::string file_;
  const std::vector<std::string>& recipes_;
  std::vector<Mutant> out_;
  std::optional<Mutant> entry_;
  int entry_line_ = 0;
  std::set<std::string> seen_, ids_;
  bool original_seen_ = false, replacement_seen_ = false;
};

}  // namespace

std::optional<std::vector<Mutant>> parse_mutants(const std::string& text, const std::string& file,
                                                 const std::vector<std::string>& recipes, MutantsError* error) {
  return Parser(file, recipes).parse(text, error);
}

std::optional<std::vector<Mutant>> load_mutants(const std::string& path, const std::vector<std::string>& recipes,
                                                MutantsError* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = MutantsError{path, 0, 0, "cannot read the file"};
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_mutants(text.str(), path, recipes, error);
}

std::optional<std::string> mutate(const Mutant& m, const std::string& source, const std::string& mutants_file,
                                  MutantsError* error) {
  std::size_t count = 0, at = std::string::npos;
  for (std::size_t i = source.find(m.original); i != std::string::npos; i = source.find(m.original, i + 1)) {
    if (count++ == 0) at = i;
  }
  if (count != 1) {
    if (error) {
      *error = MutantsError{mutants_file, m.original_line, 1,
                            fmt::format("mutant '{}': the original occurs {} times in {} (must be exactly once)",
                                        m.id, count, m.file)};
    }
    return std::nullopt;
  }
  std::string out = source;
  out.replace(at, m.original.size(), m.replacement);
  return out;
}

}  // namespace zksim::mutants
