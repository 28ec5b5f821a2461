// Libraries loaded when a feature is first used rather than linked (librsvg for PNG diagrams, LAPACK for
// `spectrum`): every other command starts without them, and a machine without them still runs the rest.
// Collects the first library or symbol that could not be found, for the caller's one error line.
#pragma once
#include <string>

namespace ma {

class RuntimeLibraries {
 public:
  // dlopen(name, RTLD_NOW | RTLD_LOCAL); nullptr (and `missing` set, if still empty) when absent.
  void* open(const char* name);
  // `fn` = the symbol's address as the function type F; nullptr (and `missing` set) when absent.
  template <typename F>
  void bind(void* lib, const char* symbol, F& fn) {
    fn = reinterpret_cast<F>(lookup(lib, symbol));
  }
  // The first library or symbol not found; empty when everything loaded.
  const std::string& missing() const { return missing_; }

 private:
  void* lookup(void* lib, const char* symbol);
  std::string missing_;
};

}  // namespace ma
