// The page's style and script (src/page.css, src/page.js), embedded.
#pragma once

namespace zksim::timeline::detail {

extern const char* const kPageCss;
extern const char* const kPageJs;

}  // namespace zksim::timeline::detail
