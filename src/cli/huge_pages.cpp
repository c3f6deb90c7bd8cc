// Large blocks on transparent huge pages. gpuscope's analyses hold the trace in a few large
// arrays (about 90 bytes a record: ~900 MB at 10M records) and allocate large temporaries per
// analysis. Each fresh 4 KiB page costs a page fault; on virtual machines that is 10-15 µs
// (measured: 2 GiB touched in 4 KiB pages 6-8 s, in madvised 2 MiB pages 0.12-1.7 s), which
// made page faults most of a 10M-record report's time. So every block of at least
// kHugeBlockBytes is its own mapping (a fixed mmap threshold) advised MADV_HUGEPAGE, as glibc's
// `glibc.malloc.hugetlb=1` tunable would do, without an environment variable that the
// programs gpuscope runs would inherit. Smaller blocks stay on malloc's heap as before.
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

#include "cli/huge_pages.h"

namespace {

constexpr std::size_t kHugeBlockBytes = std::size_t{4} << 20;  // 4 MiB: at least one whole huge page inside
constexpr std::size_t kKeptHeapBytes = std::size_t{64} << 20;
constexpr std::uintptr_t kHugePageBytes = std::uintptr_t{2} << 20;

}  // namespace

namespace gpuscope::cli {

void use_huge_pages_for_large_blocks() {
  // A fixed threshold also stops glibc from raising it after the first large free, which would
  // move later large blocks onto the heap, out of reach of the advice.
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kHugeBlockBytes));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(kKeptHeapBytes));
}

}  // namespace gpuscope::cli

// Under AddressSanitizer its own operator new must stay in place to check every allocation.
#if !defined(__SANITIZE_ADDRESS__)

namespace {

// The whole huge pages inside [block, block + size): malloc's own header sits on the block's
// first page, so the huge page that holds it is left to the kernel's default.
void advise_huge_pages(void* block, std::size_t size) {
  const auto begin = reinterpret_cast<std::uintptr_t>(block);
  const std::uintptr_t first = (begin + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
  const std::uintptr_t last = (begin + size) & ~(kHugePageBytes - 1);
  if (last > first)
    madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);  // advice only: failure is harmless
}

}  // namespace

void* operator new(std::size_t size) {
  void* block = std::malloc(size == 0 ? 1 : size);
  if (block == nullptr) throw std::bad_alloc();
  if (size >= kHugeBlockBytes) advise_huge_pages(block, size);
  return block;
}

// libstdc++'s array and nothrow forms call these. GCC takes free() inside an operator delete for
// a mismatch with new; here it is the match of the malloc above.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* block) noexcept { std::free(block); }
void operator delete(void* block, std::size_t) noexcept { std::free(block); }
#pragma GCC diagnostic pop

#endif
