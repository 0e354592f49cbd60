#include "escape.h"

#include <fmt/format.h>

#include <cstdint>

namespace zksim::timeline::detail {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the valid UTF-8 sequence at s[i], or 0 if none starts there.
std::size_t sequence_at(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  if (b < 0x80) return 1;
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2, cp = b & 0x1F;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3, cp = b & 0x0F;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4, cp = b & 0x07;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = cp << 6 | (byte(i + k) & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0;
  return n;
}

// Calls f(code point bytes) for each code point of valid UTF-8 `s`.
template <typename F>
void each_code_point(std::string_view s, F&& f) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = sequence_at(s, i);
    if (n == 0) n = 1;  // not valid UTF-8 after all: one byte at a time
    f(s.substr(i, n));
    i += n;
  }
}

std::uint32_t decode(std::string_view cp) {
  const auto b0 = static_cast<unsigned char>(cp[0]);
  if (cp.size() == 1) return b0;
  std::uint32_t v = b0 & (0xFF >> (cp.size() + 1));
  for (std::size_t k = 1; k < cp.size(); ++k) v = v << 6 | (static_cast<unsigned char>(cp[k]) & 0x3F);
  return v;
}

}  // namespace

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (std::size_t n = sequence_at(s, i); n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out.append(kReplacement);
      ++i;
    }
  }
  return out;
}

std::string printable(std::string_view s) {
  std::string out;
  each_code_point(valid_utf8(s), [&](std::string_view cp) {
    const std::uint32_t v = decode(cp);
    const bool control = v < 0x20 || (v >= 0x7F && v < 0xA0);
    out.append(control ? std::string_view("?") : cp);
  });
  return out;
}

std::size_t columns(std::string_view utf8) {
  std::size_t n = 0;
  each_code_point(utf8, [&](std::string_view) { ++n; });
  return n;
}

std::string clip(std::string_view utf8, std::size_t width) {
  if (columns(utf8) <= width) return std::string(utf8);
  if (width == 0) return {};
  std::string out;
  std::size_t n = 0;
  each_code_point(utf8, [&](std::string_view cp) {
    if (n + 1 < width) out.append(cp);
    ++n;
  });
  return out + "\xE2\x80\xA6";  // U+2026
}

std::string pad(std::string_view utf8, std::size_t width) {
  std::string out(utf8);
  for (std::size_t n = columns(utf8); n < width; ++n) out += ' ';
  return out;
}

std::string html_escape(std::string_view s) {
  std::string out;
  for (char c : valid_utf8(s)) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string json_string(std::string_view s) {
  std::string out = "\"";
  each_code_point(valid_utf8(s), [&](std::string_view cp) {
    const std::uint32_t v = decode(cp);
    if (v == '"') {
      out += "\\\"";
    } else if (v == '\\') {
      out += "\\\\";
    } else if (v < 0x20 || v == 0x7F || v == '<' || v == '>' || v == '&' || v == 0x2028 || v == 0x2029) {
      out += fmt::format("\\u{:04x}", v);
    } else {
      out.append(cp);
    }
  });
  return out + "\"";
}

}  // namespace zksim::timeline::detail
