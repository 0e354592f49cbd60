#include "zksim/path.h"

#include <gtest/gtest.h>

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
