#include "core/runtime_library.h"

#include <dlfcn.h>

namespace ma {

void* RuntimeLibraries::open(const char* name) {
  void* h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (!h && missing_.empty()) missing_ = name;
  return h;
}

void* RuntimeLibraries::lookup(void* lib, const char* symbol) {
  void* p = lib ? dlsym(lib, symbol) : nullptr;
  if (!p && missing_.empty()) missing_ = symbol;
  return p;
}

}  // namespace ma
