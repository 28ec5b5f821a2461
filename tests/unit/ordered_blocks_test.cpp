// emit_blocks_in_order hands every block on exactly once, in order, whatever order the threads finish them
// in; never makes a block more than two per thread ahead of the last one emitted; and on a failure emits
// the blocks before the lowest failed one, no later one, rethrows its error, and returns (no thread waits
// for a slot that will never free).
#include "core/ordered_blocks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace {

// Uneven work: some blocks take a while, so that threads finish out of order.
void pause_for(size_t block) {
  if (block % 7 == 3) std::this_thread::sleep_for(std::chrono::microseconds(200));
}

TEST(OrderedBlocks, EmitsEveryBlockOnceInOrder) {
  for (size_t threads : {1, 2, 5, 16})
    for (size_t blocks : {0, 1, 3, 200}) {
      std::atomic<size_t> emitted{0}, most_ahead{0};
      std::vector<std::string> got;
      ma::emit_blocks_in_order(
          blocks, threads,
          [&](size_t b, std::string& text) {
            EXPECT_TRUE(text.empty());
            const size_t ahead = b - emitted.load();
            for (size_t m = most_ahead.load(); ahead > m && !most_ahead.compare_exchange_weak(m, ahead);) {
            }
            pause_for(b);
            text = "block " + std::to_string(b);
          },
          [&](std::string_view text) {
            got.emplace_back(text);
            ++emitted;
          });
      ASSERT_EQ(got.size(), blocks) << threads << " threads";
      for (size_t b = 0; b < blocks; ++b) EXPECT_EQ(got[b], "block " + std::to_string(b));
      EXPECT_LT(most_ahead.load(), 2 * std::min(threads, std::max<size_t>(blocks, 1)));
    }
}

TEST(OrderedBlocks, StopsAtTheLowestFailedBlockAndRethrowsItsError) {
  for (size_t threads : {1, 2, 8}) {
    std::vector<size_t> got;
    try {
      ma::emit_blocks_in_order(
          300, threads,
          [&](size_t b, std::string& text) {
            pause_for(b);
            if (b == 41 || b == 97) throw std::runtime_error("block " + std::to_string(b) + " failed");
            text = std::to_string(b);
          },
          [&](std::string_view text) { got.push_back(std::stoul(std::string(text))); });
      FAIL() << "no exception with " << threads << " threads";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "block 41 failed");
    }
    ASSERT_EQ(got.size(), 41u) << threads << " threads";
    for (size_t b = 0; b < got.size(); ++b) EXPECT_EQ(got[b], b);
  }
}

TEST(OrderedBlocks, AFailingEmitStopsEveryThread) {
  for (size_t threads : {1, 4}) {
    size_t calls = 0;
    EXPECT_THROW(ma::emit_blocks_in_order(
                     500, threads, [](size_t b, std::string& text) { text = std::to_string(b); },
                     [&](std::string_view) {
                       if (++calls == 5) throw std::runtime_error("disk full");
                     }),
                 std::runtime_error);
    EXPECT_EQ(calls, 5u);
  }
}

}  // namespace
