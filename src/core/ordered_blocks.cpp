#include "core/ordered_blocks.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

namespace ma {
namespace {

class OrderedBlocks {
 public:
  OrderedBlocks(size_t blocks, size_t threads, const std::function<void(size_t, std::string&)>& make,
                const std::function<void(std::string_view)>& emit)
      : blocks_(blocks), slots_(2 * threads), make_(make), emit_(emit) {}

  void run(size_t threads) {
    std::vector<std::thread> helpers;
    try {
      for (size_t t = 1; t < threads; ++t) helpers.emplace_back([this] { work(false); });
    } catch (const std::system_error&) {  // no more threads to be had: fewer make the blocks
    }
    std::exception_ptr failed;
    try {
      work(true);
      std::unique_lock<std::mutex> lock(mutex_);
      while (!stopped_ && emitted_ < blocks_)
        if (!emit_next(lock) && !stopped_) ready_.wait(lock);
    } catch (...) {  // from emit: the others stop after their current block
      failed = std::current_exception();
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    ready_.notify_all();
    for (std::thread& t : helpers) t.join();
    if (failed) std::rethrow_exception(failed);
    if (error_) std::rethrow_exception(error_);
  }

 private:
  // A line of its own each: make appends to its slot's string row by row, and slots side by side on one line
  // made two threads' appends fight over it.
  struct alignas(64) Slot {
    std::string text;
    bool ready = false;
    std::exception_ptr error;
  };

  // Takes blocks until none is left. Block b fills slot b % slots once block b - slots has been emitted; the
  // emitting thread (the caller's) emits what is ready while it waits and after each block it makes.
  void work(bool emitter) {
    for (;;) {
      const size_t b = next_.fetch_add(1, std::memory_order_relaxed);
      if (b >= blocks_) return;
      Slot& slot = slots_[b % slots_.size()];
      {
        std::unique_lock<std::mutex> lock(mutex_);
        while (!stopped_ && emitted_ + slots_.size() <= b)
          if (!(emitter && emit_next(lock)) && !stopped_) ready_.wait(lock);
        if (stopped_) return;
      }
      slot.text.clear();
      std::exception_ptr error;
      try {
        make_(b, slot.text);
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::unique_lock<std::mutex> lock(mutex_);
        slot.error = error;
        slot.ready = true;
        if (emitter)
          while (emit_next(lock)) {
          }
      }
      ready_.notify_all();
    }
  }

  // Emits the next block if it is ready (true), with the lock released while emit runs; a block that failed
  // stops everything instead. Called with the lock held.
  bool emit_next(std::unique_lock<std::mutex>& lock) {
    if (stopped_ || emitted_ >= blocks_) return false;
    Slot& slot = slots_[emitted_ % slots_.size()];
    if (!slot.ready) return false;
    if (slot.error) {
      error_ = slot.error;
      stopped_ = true;
      ready_.notify_all();
      return false;
    }
    lock.unlock();
    emit_(slot.text);
    lock.lock();
    slot.ready = false;
    ++emitted_;
    ready_.notify_all();
    return true;
  }

  const size_t blocks_;
  std::vector<Slot> slots_;
  const std::function<void(size_t, std::string&)>& make_;
  const std::function<void(std::string_view)>& emit_;
  std::atomic<size_t> next_{0};
  std::mutex mutex_;
  std::condition_variable ready_;
  size_t emitted_ = 0;  // blocks emitted so far (under mutex_)
  bool stopped_ = false;
  std::exception_ptr error_;  // the failed block's, once the emitter reached it
};

}  // namespace

void emit_blocks_in_order(size_t blocks, size_t threads,
                          const std::function<void(size_t, std::string&)>& make,
                          const std::function<void(std::string_view)>& emit) {
  threads = std::clamp<size_t>(threads, 1, std::max<size_t>(blocks, 1));
  OrderedBlocks(blocks, threads, make, emit).run(threads);
}

}  // namespace ma
