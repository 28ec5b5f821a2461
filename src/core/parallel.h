// parallel_for runs f(i) for i in [0, n) on up to one thread per core (the calling thread included), items
// handed out one at a time so uneven items balance. An exception from any item is rethrown after all threads
// finish: the one of the lowest item index, so errors are reported deterministically.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <thread>
#include <vector>

namespace ma {

// With an explicit number of threads: for work that waits on the network rather than on a core.
template <typename F>
void parallel_for_threads(size_t n, size_t thread_count, F&& f) {
  size_t workers = std::min<size_t>(n, std::max<size_t>(thread_count, 1));
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) {
      try {
        f(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

// Like parallel_for_threads, with a State per thread (a read buffer, count tables, an open file) handed to
// f(state, i). After the first error no new item starts; the error of the lowest item index is rethrown.
template <typename State, typename F>
void parallel_for_with_state(size_t n, size_t thread_count, F&& f) {
  size_t workers = std::min<size_t>(n, std::max<size_t>(thread_count, 1));
  std::vector<std::exception_ptr> errors(n);
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto work = [&] {
    State state;
    for (size_t i; !failed.load(std::memory_order_relaxed) && (i = next.fetch_add(1)) < n;) {
      try {
        f(state, i);
      } catch (...) {
        errors[i] = std::current_exception();
        failed = true;
      }
    }
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < workers; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

template <typename F>
void parallel_for(size_t n, F&& f) {
  parallel_for_threads(n, std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8), std::forward<F>(f));
}

}  // namespace ma

namespace ma {

// parallel_for whose other threads start at construction, so the caller can do other work first and then
// help with whatever items are left (finish()). Errors are kept per item: the caller decides which count.
class BackgroundLoop {
 public:
  template <typename F>
  BackgroundLoop(size_t n, F&& f) : n_(n), f_(std::forward<F>(f)), errors_(n) {
    size_t helpers =
        std::min<size_t>(n, std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8)) - (n ? 1 : 0);
    for (size_t t = 0; t < helpers; ++t) threads_.emplace_back([this] { work(); });
  }
  BackgroundLoop(const BackgroundLoop&) = delete;
  BackgroundLoop& operator=(const BackgroundLoop&) = delete;
  ~BackgroundLoop() { join(); }

  // Runs the remaining items on this thread too, waits for all; per item, its exception or null.
  const std::vector<std::exception_ptr>& finish() {
    work();
    join();
    return errors_;
  }

 private:
  void work() {
    for (size_t i; (i = next_.fetch_add(1, std::memory_order_relaxed)) < n_;) {
      try {
        f_(i);
      } catch (...) {
        errors_[i] = std::current_exception();
      }
    }
  }
  void join() {
    for (auto& t : threads_)
      if (t.joinable()) t.join();
  }
  size_t n_;
  std::function<void(size_t)> f_;
  std::vector<std::exception_ptr> errors_;
  std::atomic<size_t> next_{0};
  std::vector<std::thread> threads_;
};

}  // namespace ma
