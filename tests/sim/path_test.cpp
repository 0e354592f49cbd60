#include "zksim/path.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace zksim {
namespace {

TEST(PathRules, RootIsValid) { EXPECT_EQ(validate_path("/"), Error::Ok); }

TEST(PathRules, MustBeAbsoluteAndNonEmpty) {
  EXPECT_EQ(validate_path(""), Error::BadArguments);
  EXPECT_EQ(validate_path("a"), Error::BadArguments);
  EXPECT_EQ(validate_path("a/b"), Error::BadArguments);
}

TEST(PathRules, NoTrailingSlashUnlessSequential) {
  EXPECT_EQ(validate_path("/a/"), Error::BadArguments);
  EXPECT_EQ(validate_path("/a/", /*sequential=*/true), Error::Ok);
}

TEST(PathRules, NoEmptyComponent) {
  EXPECT_EQ(validate_path("//a"), Error::BadArguments);
  EXPECT_EQ(validate_path("/a//b"), Error::BadArguments);
  EXPECT_EQ(validate_path("/a//", true), Error::BadArguments);
}

TEST(PathRules, NoDotOrDotDotComponent) {
  EXPECT_EQ(validate_path("/."), Error::BadArguments);
  EXPECT_EQ(validate_path("/.."), Error::BadArguments);
  EXPECT_EQ(validate_path("/a/./b"), Error::BadArguments);
  EXPECT_EQ(validate_path("/a/../b"), Error::BadArguments);
  EXPECT_EQ(validate_path("/a/.."), Error::BadArguments);
  // Dots inside a name are fine, and a sequential "/a/." becomes "/a/.0000000001".
  EXPECT_EQ(validate_path("/a.b/..c/.d/e."), Error::Ok);
  EXPECT_EQ(validate_path("/a/.", true), Error::Ok);
}

TEST(PathRules, NoNulOrControlCharacters) {
  EXPECT_EQ(validate_path(std::string_view("/a\0b", 4)), Error::BadArguments);
  EXPECT_EQ(validate_path("/a\x01"), Error::BadArguments);
  EXPECT_EQ(validate_path("/a\x1f"), Error::BadArguments);
  EXPECT_EQ(validate_path("/a\x7f"), Error::BadArguments);
}

TEST(PathRules, ForbiddenUnicodeRanges) {
  EXPECT_EQ(validate_path("/caf\xc3\xa9"), Error::Ok);             // U+00E9
  EXPECT_EQ(validate_path("/\xc2\x85"), Error::BadArguments);      // U+0085
  EXPECT_EQ(validate_path("/\xee\x80\x80"), Error::BadArguments);  // U+E000, private use
  EXPECT_EQ(validate_path("/\xef\xbf\xbf"), Error::BadArguments);  // U+FFFF
  EXPECT_EQ(validate_path("/\xf0\x9f\x98\x80"), Error::BadArguments);  // beyond the BMP
  EXPECT_EQ(validate_path("/\xff"), Error::BadArguments);          // not UTF-8
  EXPECT_EQ(validate_path("/\xc3"), Error::BadArguments);          // truncated
}

TEST(PathRules, CClientIsLooserThanServer) {
  EXPECT_TRUE(client_accepts_path("/a\x1f"));  // isValidPath tests c < 0x1f
  EXPECT_TRUE(client_accepts_path("/\xff"));   // bytes >= 0x80 are not checked
  EXPECT_FALSE(client_accepts_path("/a\x01"));
  EXPECT_FALSE(client_accepts_path("/a/"));
  EXPECT_TRUE(client_accepts_path("/a/", /*sequential=*/true));
  EXPECT_FALSE(client_accepts_path("/a/.."));
  EXPECT_TRUE(client_accepts_path("/a/..", true));
  EXPECT_FALSE(client_accepts_path(""));
  EXPECT_FALSE(client_accepts_path("a"));
}

// The two rule sets character by character, as they were written before the
// printable-ASCII fast paths; the properties below hold the fast versions to
// them on paths full of '/', '.', control bytes and multi-byte sequences.
namespace reference {

std::uint32_t next_code_point(std::string_view s, std::size_t& i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  std::uint8_t b0 = byte(i);
  if (b0 < 0x80) return ++i, b0;
  int extra = 0;
  std::uint32_t cp = 0, min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    extra = 1, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    extra = 2, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    extra = 3, cp = b0 & 0x07, min = 0x10000;
  } else {
    return ++i, 0xFFFD;
  }
  if (i + static_cast<std::size_t>(extra) >= s.size()) return ++i, 0xFFFD;
  for (int k = 1; k <= extra; ++k) {
    std::uint8_t b = byte(i + static_cast<std::size_t>(k));
    if ((b & 0xC0) != 0x80) return ++i, 0xFFFD;
    cp = (cp << 6) | (b & 0x3F);
  }
  i += static_cast<std::size_t>(extra) + 1;
  return cp < min || cp > 0x10FFFF ? 0xFFFD : cp;
}

bool forbidden(std::uint32_t c) {
  return (c > 0x0000 && c <= 0x001F) || (c >= 0x007F && c <= 0x009F) || (c >= 0xD800 && c <= 0xF8FF) ||
         (c >= 0xFFF0 && c <= 0xFFFF) || c > 0xFFFF;
}

Error validate(std::string_view path, bool sequential) {
  if (path.empty() || path[0] != '/') return Error::BadArguments;
  if (path.size() == 1) return Error::Ok;
  if (path.back() == '/' && !sequential) return Error::BadArguments;
  const std::size_t n = path.size();
  std::size_t i = 1;
  char last = '/';
  while (i < n) {
    char c = path[i];
    bool ends_here = (i + 1 == n && !sequential) || (i + 1 < n && path[i + 1] == '/');
    if (c == '\0') return Error::BadArguments;
    if (c == '/' && last == '/') return Error::BadArguments;
    if (c == '.' && last == '.') {
      if (path[i - 2] == '/' && ends_here) return Error::BadArguments;
    } else if (c == '.') {
      if (path[i - 1] == '/' && ends_here) return Error::BadArguments;
    }
    std::size_t start = i;
    if (forbidden(next_code_point(path, i))) return Error::BadArguments;
    last = i - start > 1 ? 'x' : path[start];
  }
  return Error::Ok;
}

bool client_accepts(std::string_view path, bool sequential) {
  const std::size_t len = path.size();
  if (len == 0 || path[0] != '/') return false;
  if (len == 1) return true;
  if (path[len - 1] == '/' && !sequential) return false;
  char last = '/';
  for (std::size_t i = 1; i < len; last = path[i], ++i) {
    char c = path[i];
    bool at_end = i + 1 == len;
    bool ends = (at_end && !sequential) || (!at_end && path[i + 1] == '/');
    if (c == 0) return false;
    if (c == '/' && last == '/') return false;
    if (c == '.' && last == '.') {
      if (path[i - 2] == '/' && ends) return false;
    } else if (c == '.') {
      if (path[i - 1] == '/' && ends) return false;
    } else if (c > 0x00 && c < 0x1f) {
      return false;
    }
  }
  return true;
}

}  // namespace reference

// Harmless components (long enough for runs of ordinary bytes) with at
// most two that matter to the rules ("", ".", "..", control bytes, bytes the
// server refuses, malformed UTF-8) at chosen places, joined by '/'.
rc::Gen<std::string> gen_raw_path() {
  const auto harmless = rc::gen::element<std::string>("a", "abc", "a.b", ".x", "x.", "...", "lock-0000000001",
                                                      "_c_0-1-", "\xc3\xa9", "\xe2\x82\xac");
  const auto special = rc::gen::element<std::string>("", ".", "..", "\x1f", "\x1e", "\x01", "\x7f", "\xc2\x85",
                                                     "\xef\xbf\xbd", "\xf0\x9f\x98\x80", "\xc3", "\xff",
                                                     std::string("a\0b", 3));
  return rc::gen::exec([=] {
    auto parts = *rc::gen::resize(10, rc::gen::container<std::vector<std::string>>(harmless));
    const auto specials = *rc::gen::inRange(0, 3);
    for (int k = 0; k < specials; ++k) {
      const auto at = *rc::gen::inRange<std::size_t>(0, parts.size() + 1);
      const auto bad = *special;
      // A whole component, or inside another one's bytes.
      if (*rc::gen::arbitrary<bool>() || at == parts.size()) {
        parts.insert(parts.begin() + static_cast<std::ptrdiff_t>(at), bad);
      } else {
        parts[at].insert(*rc::gen::inRange<std::size_t>(0, parts[at].size() + 1), bad);
      }
    }
    std::string out;
    for (const std::string& p : parts) out += "/" + p;
    if (out.empty()) out = "/";
    if (*rc::gen::weightedElement<bool>({{1, true}, {4, false}})) out += "/";
    return out;
  });
}

RC_GTEST_PROP(PathRules, ServerRulesMatchTheCharacterByCharacterDefinition, ()) {
  const auto path = *rc::gen::oneOf(gen_raw_path(), rc::gen::container<std::string>(rc::gen::arbitrary<char>()));
  const bool sequential = *rc::gen::arbitrary<bool>();
  RC_ASSERT(validate_path(path, sequential) == reference::validate(path, sequential));
}

RC_GTEST_PROP(PathRules, ClientRulesMatchTheCharacterByCharacterDefinition, ()) {
  const auto path = *rc::gen::oneOf(gen_raw_path(), rc::gen::container<std::string>(rc::gen::arbitrary<char>()));
  const bool sequential = *rc::gen::arbitrary<bool>();
  RC_ASSERT(client_accepts_path(path, sequential) == reference::client_accepts(path, sequential));
}

TEST(Path, KnowsParentAndName) {
  Path p = Path::make("/a/b/c").value();
  EXPECT_EQ(p.name(), "c");
  EXPECT_EQ(p.parent().str(), "/a/b");
  EXPECT_EQ(p.parent().parent().parent().str(), "/");
  EXPECT_TRUE(Path().is_root());
  EXPECT_EQ(Path().parent().str(), "/");
  EXPECT_EQ(Path().child("x").value().str(), "/x");
  EXPECT_EQ(p.child("d").value().str(), "/a/b/c/d");
  EXPECT_EQ(p.child("").error(), Error::BadArguments);
  EXPECT_EQ(p.child("x/y").error(), Error::BadArguments);
  EXPECT_EQ(Path::make("/a/").error(), Error::BadArguments);
}

}  // namespace
}  // namespace zksim
