// The heap's page size. Opening a large sharded checkpoint builds tens of thousands of small records
// (names, shapes, inventory rows: about 25 MB for DeepSeek-V3's 46,183 tensors). On virtual machines a 4 KiB
// page fault is dear: touching 25 MB of fresh memory took 60 ms in 4 KiB pages on the 2-core development VM,
// against 4 ms in 2 MiB pages. So, where the kernel offers transparent huge pages on request, the heap asks
// for them. The price is memory committed in 2 MiB steps (DeepSeek-V3's inventory: peak RSS 30.4 -> 34.7 MB,
// worker threads' heaps included).
#pragma once
#include <cstddef>
#include <memory>

// The sanitizers bring an allocator of their own: glibc's heap is not where blocks come from.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define MA_SANITIZER_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define MA_SANITIZER_ALLOCATOR 1
#endif
#endif

namespace ma {

// Call first thing in main, before any thread starts: the main heap grows 64 MiB at a time, and that growth
// is marked MADV_HUGEPAGE. (Worker threads keep arenas of their own, in 4 KiB pages: sharing the main one
// made them wait on its lock longer than the faults they were spared.) Without THP, under a sanitizer, or on
// another libc, it does nothing; nothing depends on it but speed.
void prefer_huge_heap_pages();

// The same for the heap of the calling thread's own arena; call first thing in a worker thread. Worker
// threads allocate apart from the main heap, and reading DeepSeek-V3's 163 headers made 1,900 faults there.
// It pays after prefer_huge_heap_pages, whose 64 MiB growth also makes a new arena read-write in one piece:
// a mapping smaller than 2 MiB never holds a huge page.
void prefer_huge_thread_heap_pages();

// The same for one large block of its own (glibc maps blocks over 32 MiB apart from the heap): the 2 MiB
// pages wholly inside [data, data + bytes) may be huge. allocate_huge_page_block below uses it on a block
// aligned so that every page qualifies.
void prefer_huge_pages(void* data, size_t bytes);

// A block of its own that starts on a 2 MiB boundary and asks for huge pages, so that all of it may be huge,
// its head included: prefer_huge_pages on a block glibc places leaves up to 2 MiB of 4 KiB pages at the head
// (512 faults, most of what reading a 70B GGUF's 8 MB header cost beyond the copy). Not zero-filled; pages
// never touched cost address space only.
struct HugePageBlockFree {
  void operator()(char* p) const;
};
using HugePageBlock = std::unique_ptr<char[], HugePageBlockFree>;
HugePageBlock allocate_huge_page_block(size_t bytes);

}  // namespace ma
