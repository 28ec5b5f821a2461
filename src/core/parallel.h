// One parallel loop: ParallelLoop hands the items [0, n) out one at a time (uneven items balance) to up to
// `threads` threads, the caller's own included, each thread with a State of its own (a read buffer, count
// tables, an open file). Its helpers start at construction, so the caller can do other work before it
// joins in with finish(). Errors are kept per item; the wrappers below rethrow the one of the lowest item
// index after every thread has finished, so errors are reported deterministically.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

#include "core/heap_pages.h"

namespace ma {

// The cores this machine offers (at least 1).
inline size_t available_cores() {
  return std::max(1u, std::thread::hardware_concurrency());
}

// Threads for metadata work (headers, small files): the cores, at most 8; beyond that the disk or the
// page cache is the limit.
inline size_t metadata_threads() {
  return std::min<size_t>(available_cores(), 8);
}

struct NoState {};

template <typename State = NoState>
class ParallelLoop {
 public:
  // StopNewItems: after an item fails, no new item starts (a scan whose one failure ends the command).
  enum class OnError { Continue, StopNewItems };

  template <typename F>
  ParallelLoop(size_t n, size_t threads, F&& f, OnError on_error = OnError::Continue)
      : n_(n), f_(std::forward<F>(f)), errors_(n), stop_on_error_(on_error == OnError::StopNewItems) {
    const size_t helpers = std::min<size_t>(n, std::max<size_t>(threads, 1)) - (n ? 1 : 0);
    // A helper's heap in 2 MiB pages holds at least 2 MiB: worth it for metadata work (up to 8 threads
    // building tens of thousands of records), not for a many-core scan whose helpers allocate a few buffers.
    const bool huge_heaps = helpers < metadata_threads();
    for (size_t t = 0; t < helpers; ++t)
      threads_.emplace_back([this, huge_heaps] {
        if (huge_heaps) prefer_huge_thread_heap_pages();
        work();
      });
  }
  ParallelLoop(const ParallelLoop&) = delete;
  ParallelLoop& operator=(const ParallelLoop&) = delete;
  ~ParallelLoop() { join(); }

  // Runs the remaining items on this thread too and waits for all; per item, its exception or null.
  const std::vector<std::exception_ptr>& finish() {
    work();
    join();
    return errors_;
  }

 private:
  void work() {
    State state;
    for (size_t i; !(stop_on_error_ && failed_.load(std::memory_order_relaxed)) &&
                   (i = next_.fetch_add(1, std::memory_order_relaxed)) < n_;) {
      try {
        f_(state, i);
      } catch (...) {
        errors_[i] = std::current_exception();
        failed_ = true;
      }
    }
  }
  void join() {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }

  size_t n_;
  std::function<void(State&, size_t)> f_;
  std::vector<std::exception_ptr> errors_;
  bool stop_on_error_;
  std::atomic<size_t> next_{0};
  std::atomic<bool> failed_{false};
  std::vector<std::thread> threads_;
};

// The exception of the lowest failed item, if any.
inline void rethrow_first(const std::vector<std::exception_ptr>& errors) {
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

// f(i) for every item on `thread_count` threads (for work that waits on the network rather than on a core,
// more than the cores); every item runs even when others fail.
template <typename F>
void parallel_for_threads(size_t n, size_t thread_count, F&& f) {
  ParallelLoop<> loop(n, thread_count, [&f](NoState&, size_t i) { f(i); });
  rethrow_first(loop.finish());
}

// f(state, i) with a State per thread; after the first error no new item starts.
template <typename State, typename F>
void parallel_for_with_state(size_t n, size_t thread_count, F&& f) {
  ParallelLoop<State> loop(n, thread_count, std::forward<F>(f), ParallelLoop<State>::OnError::StopNewItems);
  rethrow_first(loop.finish());
}

template <typename F>
void parallel_for(size_t n, F&& f) {
  parallel_for_threads(n, metadata_threads(), std::forward<F>(f));
}

}  // namespace ma
