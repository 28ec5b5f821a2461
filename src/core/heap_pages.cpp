#include "core/heap_pages.h"

#include <cstdint>
#include <cstdlib>  // defines __GLIBC__ on glibc
#include <new>

#if defined(__GLIBC__)
#include <malloc.h>
#include <sys/mman.h>
#include <sys/uio.h>
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
constexpr uintptr_t kThreadHeap = uintptr_t{64} << 20;
constexpr int kMadvCollapse = 25;  // <linux/mman.h>'s MADV_COLLAPSE, which glibc 2.36's headers lack

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
  asm volatile("" : : "r"(p) : "memory");     // the compiler would otherwise drop the malloc/free pair
  auto top = reinterpret_cast<uintptr_t>(p);  // an address kept, not a pointer used after the free
  asm volatile("" : "+r"(top));
  std::free(p);
  const auto after = reinterpret_cast<uintptr_t>(sbrk(0));
  const uintptr_t begin = align_up(before), end = after & ~(kHugePage - 1);
  if (before == static_cast<uintptr_t>(-1) || end <= begin) return;
  if (madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE) != 0) return;  // no THP
  // Allocating p wrote the heap top's header just past it, before the madvise: that one 4 KiB page would
  // keep its whole 2 MiB in small pages (480 faults of DeepSeek-V3's index read landed there). Collapse it
  // now (Linux 6.1's MADV_COLLAPSE; refused elsewhere, which costs only those faults).
  const uintptr_t header_page = (top + (size_t{4} << 20)) & ~(kHugePage - 1);
  if (header_page >= begin && header_page + kHugePage <= end)
    madvise(reinterpret_cast<void*>(header_page), kHugePage, kMadvCollapse);
  // The freed block went back to the heap's top, so the next block from the top starts where p did. From
  // there to the first 2 MiB boundary the heap can only have 4 KiB pages: hold that stretch, untouched, so
  // that what the run allocates next begins in huge pages. (The break starts at a random address: the
  // stretch is 1 MiB on average, 256 faults of 4 KiB.)
  constexpr uintptr_t kChunkHeader = 2 * sizeof(size_t);
  if (top < begin && begin - top > 4 * kChunkHeader) {
    static void* small_page_head = nullptr;
    small_page_head = std::malloc(begin - top - 2 * kChunkHeader);
    asm volatile("" : : "r"(small_page_head) : "memory");
  }
}

void prefer_huge_pages(void* data, size_t bytes) {
  const auto p = reinterpret_cast<uintptr_t>(data);
  const uintptr_t begin = align_up(p), end = (p + bytes) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
}

void prefer_huge_thread_heap_pages() {
  // The arena this thread allocates from (created by its first allocation).
  void* probe = std::malloc(1);
  asm volatile("" : : "r"(probe) : "memory");
  const auto at = reinterpret_cast<uintptr_t>(probe);
  std::free(probe);
  // Below the break: the main arena, already asked for huge pages by prefer_huge_heap_pages.
  if (at < reinterpret_cast<uintptr_t>(sbrk(0))) return;
  // glibc places each thread heap at a multiple of its largest size, HEAP_MAX_SIZE (64 MiB on 64-bit
  // systems), and begins it with its bookkeeping: the arena, the previous heap, the size in use and the
  // size mapped read-write. That is read with process_vm_readv, which reports a bad address instead of
  // faulting, and believed only if it describes a heap holding `at`.
  const uintptr_t base = at & ~(kThreadHeap - 1);
  uintptr_t info[4] = {};
  const iovec local{info, sizeof info}, remote{reinterpret_cast<void*>(base), sizeof info};
  if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(sizeof info)) return;
  const uintptr_t size = info[2], mapped = info[3];
  const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  if (size > mapped || mapped > kThreadHeap || at - base >= size || mapped % page) return;
  // The whole heap, the part glibc has yet to make read-write included (it keeps the mark when it does).
  // Every 2 MiB of it may now be huge, except the first: its bookkeeping was already written in 4 KiB
  // pages, and a range that holds small pages is filled in small pages. MADV_COLLAPSE (Linux 6.1) turns it
  // into one huge page now; elsewhere it is refused, and only the first 2 MiB stay small.
  if (madvise(reinterpret_cast<void*>(base), kThreadHeap, MADV_HUGEPAGE) != 0) return;
  madvise(reinterpret_cast<void*>(base), kHugePage, kMadvCollapse);
}

#else

void prefer_huge_heap_pages() {}
void prefer_huge_thread_heap_pages() {}
void prefer_huge_pages(void*, size_t) {}

#endif

}  // namespace ma
