#include "zksim/path.h"

#include <bit>
#include <cstdint>
#include <cstring>

namespace zksim {
namespace {

// Decodes one UTF-8 sequence at s[i]; returns the code point and advances i.
// Malformed input decodes as U+FFFD, as Java's decoder would replace it.
std::uint32_t next_code_point(std::string_view s, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  std::uint8_t b0 = byte(i);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  int extra = 0;
  std::uint32_t cp = 0;
  std::uint32_t min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    extra = 1, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    extra = 2, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    extra = 3, cp = b0 & 0x07, min = 0x10000;
  } else {
    ++i;
    return 0xFFFD;
  }
  if (i + static_cast<std::size_t>(extra) >= s.size()) {
    ++i;
    return 0xFFFD;
  }
  for (int k = 1; k <= extra; ++k) {
    std::uint8_t b = byte(i + k);
    if ((b & 0xC0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  i += extra + 1;
  if (cp < min || cp > 0x10FFFF) return 0xFFFD;
  return cp;
}

bool forbidden_code_point(std::uint32_t c) {
  // Java checks UTF-16 units; a code point beyond the BMP is a surrogate pair there.
  return (c > 0x0000 && c <= 0x001F) || (c >= 0x007F && c <= 0x009F) ||
         (c >= 0xD800 && c <= 0xF8FF) || (c >= 0xFFF0 && c <= 0xFFFF) || c > 0xFFFF;
}

// Eight bytes at a time: masks with the high bit set in bytes a rule cares
// about. The lowest flagged byte is always a true match (borrows and carries
// only flag bytes above one), so on a little-endian load its index is the
// count of ordinary bytes before it.
constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
constexpr std::uint64_t kHighs = 0x8080808080808080ULL;

std::uint64_t word_at(const char* p) {
  std::uint64_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}
// Bytes below n (n <= 128; bytes from 0x80 up are not).
constexpr std::uint64_t below(std::uint64_t w, std::uint64_t n) { return (w - kOnes * n) & ~w & kHighs; }
// Bytes above 0x7e.
constexpr std::uint64_t above_7e(std::uint64_t w) { return ((w + kOnes) | w) & kHighs; }
// '.' and '/' (0x2e, 0x2f).
constexpr std::uint64_t dot_or_slash(std::uint64_t w) {
  const std::uint64_t x = (w | kOnes) ^ (kOnes * 0x2f);
  return (x - kOnes) & ~x & kHighs;
}

// How many of the bytes from `i` on need no rule, counted a word at a time
// (0 when path[i] itself does); `flags` gives a word's flagged bytes.
template <class Flags>
std::size_t ordinary_run(std::string_view path, std::size_t i, Flags flags) {
  std::size_t run = 0;
  while (i + run + 8 <= path.size()) {
    const std::uint64_t m = flags(word_at(path.data() + i + run));
    if (m == 0) {
      run += 8;
      continue;
    }
    if constexpr (std::endian::native == std::endian::little) run += std::countr_zero(m) / 8;
    break;
  }
  return run;
}

}  // namespace

Error validate_path(std::string_view path, bool sequential) noexcept {
  if (path.empty() || path[0] != '/') return Error::BadArguments;
  if (path.size() == 1) return Error::Ok;
  // PathUtils.validatePath(path, isSequential) validates path + "1".
  bool trailing_slash = path.back() == '/';
  if (trailing_slash && !sequential) return Error::BadArguments;
  const std::size_t n = path.size();
  std::size_t i = 1;
  char last = '/';
  while (i < n) {
    // Printable ASCII other than '/' and '.' is always allowed.
    if (std::size_t run = ordinary_run(path, i, [](std::uint64_t w) { return below(w, 0x20) | above_7e(w) | dot_or_slash(w); })) {
      i += run;
      last = path[i - 1];
      continue;
    }
    char c = path[i];
    if (c >= 0x20 && c < 0x7f && c != '/' && c != '.') {
      last = c;
      ++i;
      continue;
    }
    // The component ends at the next '/', or at the end (where "1" would follow
    // for a sequential path, so "/a/." + "1" is not relative).
    bool ends_here = (i + 1 == n && !sequential) || (i + 1 < n && path[i + 1] == '/');
    if (c == '\0') return Error::BadArguments;
    if (c == '/' && last == '/') return Error::BadArguments;
    if (c == '.' && last == '.') {
      if (path[i - 2] == '/' && ends_here) return Error::BadArguments;
    } else if (c == '.') {
      if (path[i - 1] == '/' && ends_here) return Error::BadArguments;
    }
    std::size_t start = i;
    std::uint32_t cp = next_code_point(path, i);
    if (forbidden_code_point(cp)) return Error::BadArguments;
    last = path[start];
    if (i - start > 1) last = 'x';  // a multi-byte character is never '/' or '.'
  }
  return Error::Ok;
}

bool client_accepts_path(std::string_view path, bool sequential) noexcept {
  // Transcribes isValidPath (zookeeper.c, 3.8): it tests signed chars, so bytes
  // >= 0x80 pass, and 0x1F passes (its test is c < 0x1f).
  const std::size_t len = path.size();
  if (len == 0 || path[0] != '/') return false;
  if (len == 1) return true;
  if (path[len - 1] == '/' && !sequential) return false;
  for (std::size_t i = 1; i < len; ++i) {
    // Every byte from 0x1f up (as unsigned) other than '/' and '.' passes.
    i += ordinary_run(path, i, [](std::uint64_t w) { return below(w, 0x1f) | dot_or_slash(w); });
    if (i == len) break;
    char c = path[i];
    if (static_cast<unsigned char>(c) >= 0x1f && c != '/' && c != '.') continue;
    const char last = path[i - 1];
    bool at_end = i + 1 == len;
    if (c == 0) return false;
    if (c == '/' && last == '/') return false;
    if (c == '.' && last == '.') {
      if (path[i - 2] == '/' && ((at_end && !sequential) || (!at_end && path[i + 1] == '/'))) {
        return false;
      }
    } else if (c == '.') {
      if (path[i - 1] == '/' && ((at_end && !sequential) || (!at_end && path[i + 1] == '/'))) {
        return false;
      }
    } else if (c > 0x00 && c < 0x1f) {
      return false;
    }
  }
  return true;
}

Result<Path> Path::make(std::string_view text) {
  if (Error e = validate_path(text); e != Error::Ok) return e;
  return Path(std::string(text));
}

std::string_view parent_of(std::string_view path) noexcept {
  std::size_t slash = path.rfind('/');
  if (slash == 0 || slash == std::string_view::npos) return path.substr(0, 1);
  return path.substr(0, slash);
}

std::string_view name_of(std::string_view path) noexcept {
  std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return path;
  return path.substr(slash + 1);
}

Path Path::parent() const { return Path(std::string(parent_of(text_))); }

std::string_view Path::name() const noexcept { return name_of(text_); }

Result<Path> Path::child(std::string_view name) const {
  if (name.empty() || name.find('/') != std::string_view::npos) return Error::BadArguments;
  std::string text = is_root() ? "/" : text_ + "/";
  text.append(name);
  return make(text);
}

}  // namespace zksim
