#pragma once

// One home for how much a test searches under the sanitizers. Under
// AddressSanitizer a simulated run is about 70 times slower; there a sized
// test (seeds, runs, cases) is a smoke run that drives the same code for
// memory and undefined-behaviour errors, and the Release pass (the same
// test, full size) is the one that searches.

namespace zksim::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

// `full` in a plain build, `smoke` under the sanitizers.
template <class T>
constexpr T full_or_smoke(T full, T smoke) {
  return kSanitized ? smoke : full;
}

}  // namespace zksim::test
