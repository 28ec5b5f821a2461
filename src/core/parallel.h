// Runs f(i) for i in [0, n) on up to one thread per core (the calling thread included), items handed out
// one at a time so uneven items balance. An exception from any item is rethrown after all threads finish:
// the one of the lowest item index, so errors are reported deterministically.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <thread>
#include <vector>

namespace ma {

template <typename F>
void parallel_for(size_t n, F&& f) {
  size_t workers = std::min<size_t>(n, std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 8));
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

}  // namespace ma
