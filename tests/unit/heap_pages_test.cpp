// The heap and large buffers ask for transparent huge pages (core/heap_pages.h): after the call, the block
// lies in a mapping the kernel may back with 2 MiB pages. Skips where the kernel offers none, or under a
// sanitizer (whose allocator is not glibc's heap).
#include "core/heap_pages.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string read_text(const char* path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// The "THPeligible" line of the /proc/self/smaps entry whose range holds `address`, or -1 if none.
int huge_page_eligible(uintptr_t address) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    unsigned long begin = 0, end = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &begin, &end) == 2 && line.find(':') > line.find(' ')) {
      inside = address >= begin && address < end;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0) return std::stoi(line.substr(12));
  }
  return -1;
}

#if defined(MA_SANITIZER_ALLOCATOR) || !defined(__GLIBC__)
constexpr bool kGlibcHeap = false;
#else
constexpr bool kGlibcHeap = true;
#endif

// prefer_huge_heap_pages is made for the start of main, when the heap's only free memory is the little
// start-up left. ctest runs each test in a process of its own; one run of many tests in one process may have
// left megabytes free, which the call's blocks then come from instead of growing the heap.
bool heap_as_at_start() {
#if defined(__GLIBC__) && !defined(MA_SANITIZER_ALLOCATOR)
  return mallinfo2().fordblks < (size_t{1} << 20);
#else
  return true;
#endif
}

enum class Heap { Any, AsAtStart };

// The kernel's THP setting ("always [madvise] never"), or empty with the reason the calls cannot be observed.
std::string thp_mode(std::string& why_not, Heap heap = Heap::Any) {
  const std::string mode = read_text("/sys/kernel/mm/transparent_hugepage/enabled");
  if (!kGlibcHeap)
    why_not = "the sanitizer's allocator (or a libc other than glibc) owns the heap";
  else if (mode.empty() || mode.find("[never]") != std::string::npos)
    why_not = "this kernel offers no transparent huge pages";
  else if (heap == Heap::AsAtStart && !heap_as_at_start())
    why_not =
        "earlier tests in this process left megabytes free in the heap: run this test in a process of its "
        "own, "
        "as ctest does";
  return why_not.empty() ? mode : "";
}

TEST(HeapPages, HeapBlocksMayUseHugePagesAfterTheCall) {
  std::string why_not;
  const std::string mode = thp_mode(why_not, Heap::AsAtStart);
  if (mode.empty()) GTEST_SKIP() << why_not;
  ma::prefer_huge_heap_pages();
  std::vector<char> block(size_t{8} << 20, 1);  // under the 32 MiB mmap threshold: from the heap
  EXPECT_EQ(huge_page_eligible(reinterpret_cast<uintptr_t>(block.data() + block.size() / 2)), 1)
      << "THP mode: " << mode;
}

// The heap below its first 2 MiB boundary can only hold 4 KiB pages; the call keeps the next block out of
// it, so a block allocated right after may be huge from its first page on.
TEST(HeapPages, TheNextHeapBlockMayUseHugePagesFromItsHead) {
  std::string why_not;
  const std::string mode = thp_mode(why_not, Heap::AsAtStart);
  if (mode.empty()) GTEST_SKIP() << why_not;
  ma::prefer_huge_heap_pages();
  std::vector<char> block(size_t{8} << 20, 1);
  EXPECT_EQ(huge_page_eligible(reinterpret_cast<uintptr_t>(block.data()) + 4096), 1) << "THP mode: " << mode;
}

TEST(HeapPages, ALargeBlockMayUseHugePagesAfterTheCall) {
  std::string why_not;
  const std::string mode = thp_mode(why_not);
  if (mode.empty()) GTEST_SKIP() << why_not;
  // A mapping of its own, as glibc gives a block over its mmap threshold.
  const size_t bytes = size_t{16} << 20;
  void* room = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(room, MAP_FAILED);
  const auto middle = reinterpret_cast<uintptr_t>(room) + bytes / 2;
  if (mode.find("[madvise]") != std::string::npos) {
    EXPECT_EQ(huge_page_eligible(middle), 0);  // not before the call
  }
  ma::prefer_huge_pages(room, bytes);
  EXPECT_EQ(huge_page_eligible(middle), 1) << "THP mode: " << mode;
  munmap(room, bytes);
}

TEST(HeapPages, AHugePageBlockMayUseHugePagesFromItsFirstByte) {
  std::string why_not;
  const std::string mode = thp_mode(why_not);
  if (mode.empty()) GTEST_SKIP() << why_not;
  const size_t bytes = size_t{16} << 20;
  const ma::HugePageBlock block = ma::allocate_huge_page_block(bytes);
  const auto head = reinterpret_cast<uintptr_t>(block.get());
  EXPECT_EQ(head % (size_t{2} << 20), 0u);
  EXPECT_EQ(huge_page_eligible(head), 1) << "THP mode: " << mode;
  EXPECT_EQ(huge_page_eligible(head + bytes - 1), 1) << "THP mode: " << mode;
}

// A worker thread allocates from an arena of its own, apart from the main heap; after the call that arena's
// heap may use huge pages too. (The arena may have been marked already by an earlier test's worker: glibc
// hands a finished thread's arena to the next one. Without the call's madvise this fails either way.)
TEST(HeapPages, AWorkerThreadsHeapMayUseHugePagesAfterTheCall) {
  std::string why_not;
  const std::string mode = thp_mode(why_not, Heap::AsAtStart);
  if (mode.empty()) GTEST_SKIP() << why_not;
  ma::prefer_huge_heap_pages();  // as main() does first: a new arena's heap is then read-write in one piece
  uintptr_t at = 0;
  int eligible = -1;
  std::thread worker([&] {
    std::vector<char> block(4096, 1);  // the thread's arena exists from its first allocation
    at = reinterpret_cast<uintptr_t>(block.data());
    ma::prefer_huge_thread_heap_pages();
    eligible = huge_page_eligible(at);
  });
  worker.join();
  if (at < reinterpret_cast<uintptr_t>(sbrk(0))) GTEST_SKIP() << "the worker allocated from the main heap";
  EXPECT_EQ(eligible, 1) << "THP mode: " << mode;
}

}  // namespace
