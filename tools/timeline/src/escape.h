// Making strings from a trace safe to show: in a terminal, in HTML text
// and attributes, and inside an inline <script>. Paths in a trace are
// arbitrary bytes (a scenario may use any path the server accepts), so
// every function here takes any input.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace zksim::timeline::detail {

// `s` as well-formed UTF-8: every byte that does not begin a valid sequence
// (overlong, surrogate, beyond U+10FFFF, cut short) becomes U+FFFD.
std::string valid_utf8(std::string_view s);

// For a terminal: valid UTF-8 with control characters (C0, DEL, C1) shown
// as '?', so a path cannot move the cursor or break a line.
std::string printable(std::string_view s);

// Code points in valid UTF-8 text (the columns it takes, for the scripts
// the trace uses).
std::size_t columns(std::string_view utf8);

// Valid UTF-8 `utf8` cut to at most `width` columns; when cut, the last
// column is an ellipsis. Never splits a code point.
std::string clip(std::string_view utf8, std::size_t width);

// `utf8` padded with spaces to `width` columns (no cut).
std::string pad(std::string_view utf8, std::size_t width);

// For HTML text and quoted attribute values: valid UTF-8 with & < > " '
// as character references.
std::string html_escape(std::string_view s);

// A JSON string literal (with its quotes) that is also safe inside an
// HTML <script> element: valid UTF-8, and < > & U+2028 U+2029 and every
// control character written as \u escapes, so "</script>" or "<!--"
// cannot end or change the element.
std::string json_string(std::string_view s);

}  // namespace zksim::timeline::detail
