#include "zksim/error.h"

namespace zksim {

std::string_view error_name(Error e) noexcept {
  switch (e) {
#define ZKSIM_ERROR_NAME(name, number, text) \
  case Error::name:                          \
    return text;
    ZKSIM_ERRORS(ZKSIM_ERROR_NAME)
#undef ZKSIM_ERROR_NAME
  }
  return "ZUNKNOWN";
}

bool error_from_number(int number, Error& out) noexcept {
  switch (number) {
#define ZKSIM_ERROR_NUMBER(name, num, text) \
  case num:                                 \
    out = Error::name;                      \
    return true;
    ZKSIM_ERRORS(ZKSIM_ERROR_NUMBER)
#undef ZKSIM_ERROR_NUMBER
  }
  return false;
}

}  // namespace zksim
