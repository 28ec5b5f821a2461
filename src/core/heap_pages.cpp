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
  // Grow the heap now with one block that runs from the start of the free top (what start-up left) to just
  // below the first 2 MiB boundary past the break, kept and never touched:
  // - it is larger than the top, so glibc takes the block plus M_TOP_PAD from sbrk, and no page of that
  //   growth is touched;
  // - glibc writes the new top's header just below the boundary, in the stretch that can only hold 4 KiB
  //   pages anyway (a header written inside the range marked below would keep its whole 2 MiB in small
  //   pages: 480 faults of DeepSeek-V3's index read once landed there);
  // - what the run allocates next from the top begins on the boundary, in huge pages. (The break starts at
  //   a random address: the stretch held is 1 MiB on average, 256 faults of 4 KiB spared.)
  constexpr uintptr_t kChunkHeader = 2 * sizeof(size_t);
  const auto before = reinterpret_cast<uintptr_t>(sbrk(0));
  if (before == static_cast<uintptr_t>(-1)) return;
  const uintptr_t top = before - mallinfo2().keepcost;  // the main heap's free top ends at the break
  uintptr_t begin = align_up(before);
  if (begin - before < 4 * kChunkHeader) begin += kHugePage;  // the block must outgrow the top
  if (begin - top >= kGrowth / 2) return;  // a top this large was grown already (by an earlier call)
  // A block of `request` bytes takes a chunk of request + 8 (16-aligned): it ends one header below begin.
  static void* small_page_head = nullptr;
  small_page_head = std::malloc(begin - kChunkHeader - top - sizeof(size_t));
  asm volatile("" : : "r"(small_page_head) : "memory");
  const auto after = reinterpret_cast<uintptr_t>(sbrk(0));
  const uintptr_t end = after & ~(kHugePage - 1);
  if (end <= begin) return;
  madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // refused without THP: no matter
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
