#include "core/heap_pages.h"

#include <cstdint>
#include <cstdlib>  // defines __GLIBC__ on glibc
#include <new>

#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace ma {
namespace {
constexpr size_t kHugePage = size_t{2} << 20;
}  // namespace

void HugePageBlockFree::operator()(char* p) const {
  ::operator delete[](p, std::align_val_t{kHugePage});
}

HugePageBlock allocate_huge_page_block(size_t bytes) {
  HugePageBlock block(static_cast<char*>(::operator new[](bytes, std::align_val_t{kHugePage})));
  prefer_huge_pages(block.get(), bytes);
  return block;
}

#if defined(__GLIBC__) && !defined(MA_SANITIZER_ALLOCATOR)

namespace {
constexpr size_t kGrowth = size_t{64} << 20;

uintptr_t align_up(uintptr_t p) {
  return (p + kHugePage - 1) & ~(kHugePage - 1);
}

}  // namespace

void prefer_huge_heap_pages() {
  mallopt(M_TOP_PAD, static_cast<int>(kGrowth));
  mallopt(M_TRIM_THRESHOLD, static_cast<int>(2 * kGrowth));
  // Blocks up to 32 MiB (glibc's own ceiling for its sliding threshold) come from this heap, not from
  // mmap calls of their own in 4 KiB pages.
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kGrowth / 2));
  // Grow the heap now, by one allocation larger than what start-up left free, freed at once: the region
  // glibc takes from sbrk is exactly what lies between the break before and after, and no page of it is
  // touched.
  const auto before = reinterpret_cast<uintptr_t>(sbrk(0));
  void* p = std::malloc(size_t{4} << 20);
  asm volatile("" : : "r"(p) : "memory");  // the compiler would otherwise drop the malloc/free pair
  std::free(p);
  const auto after = reinterpret_cast<uintptr_t>(sbrk(0));
  const uintptr_t begin = align_up(before), end = after & ~(kHugePage - 1);
  if (before == static_cast<uintptr_t>(-1) || end <= begin) return;
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // refused without THP: no matter
}

void prefer_huge_pages(void* data, size_t bytes) {
  const auto p = reinterpret_cast<uintptr_t>(data);
  const uintptr_t begin = align_up(p), end = (p + bytes) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

#else

void prefer_huge_heap_pages() {}
void prefer_huge_pages(void*, size_t) {}

#endif

}  // namespace ma
