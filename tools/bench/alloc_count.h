// Heap allocations made through operator new in this program so far: the
// benchmark counter that shows a path allocates nothing (issue 20). Linking
// alloc_count.cpp replaces the global operator new and delete of the
// program with counting ones over malloc and free.
#pragma once

#include <cstdint>

namespace zksim::bench {

std::uint64_t allocations();

}  // namespace zksim::bench
