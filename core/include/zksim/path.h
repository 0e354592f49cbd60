// ZooKeeper paths. Two rule sets exist and both are modelled:
//  - the server's (Java PathUtils.validatePath), the strict one, which Path enforces;
//  - the C client's isValidPath, which the client library applies before sending.
#pragma once

#include "zksim/result.h"

#include <string>
#include <string_view>

namespace zksim {

// Ok when `path` is valid by the server's rules: absolute, no trailing '/'
// (except the root; a sequential create may end in '/'), no empty, "." or ".."
// component, no NUL, no character ZooKeeper forbids (U+0001-U+001F,
// U+007F-U+009F, U+D800-U+F8FF and so every character outside the BMP,
// U+FFF0-U+FFFF, and invalid UTF-8); BadArguments otherwise.
Error validate_path(std::string_view path, bool sequential = false) noexcept;

// True when the C client (3.8) would send a request for `path`: its rules
// are looser than the server's (it checks bytes, not characters).
bool client_accepts_path(std::string_view path, bool sequential = false) noexcept;

// A path that is valid by the server's rules.
class Path {
 public:
  // The root, "/".
  Path() : text_("/") {}
  // BadArguments when `text` is not a valid path.
  static Result<Path> make(std::string_view text);

  const std::string& str() const noexcept { return text_; }
  bool is_root() const noexcept { return text_.size() == 1; }
  // The parent; the root is its own parent.
  Path parent() const;
  // The last component; empty for the root.
  std::string_view name() const noexcept;
  // This path with one more component. BadArguments if `name` is not a valid component.
  Result<Path> child(std::string_view name) const;

  friend auto operator<=>(const Path&, const Path&) = default;

 private:
  explicit Path(std::string text) : text_(std::move(text)) {}
  std::string text_;
};

// The parent of a path string ("/a/b" -> "/a", "/a" -> "/"). REQUIRES: path starts with '/'.
std::string_view parent_of(std::string_view path) noexcept;
// The last component of a path string.
std::string_view name_of(std::string_view path) noexcept;

}  // namespace zksim
