#include "io/input_files.h"

#include <mutex>
#include <set>
#include <utility>

namespace ma {
namespace {

struct InputFiles {
  std::mutex mutex;
  std::set<std::pair<uint64_t, uint64_t>> files;
};

InputFiles& inputs() {
  static InputFiles i;
  return i;
}

}  // namespace

void note_input_file(uint64_t device, uint64_t inode) {
  InputFiles& i = inputs();
  std::lock_guard lock(i.mutex);
  i.files.emplace(device, inode);
}

bool is_input_file(uint64_t device, uint64_t inode) {
  InputFiles& i = inputs();
  std::lock_guard lock(i.mutex);
  return i.files.count({device, inode}) != 0;
}

}  // namespace ma
