// File helpers of the fake Hub: whole-file reads and writes, a file's tail.
#include "fake_hub_io.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ma::test::detail {

namespace fs = std::filesystem;

std::string read_whole_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_whole_file(const fs::path& p, std::string_view content) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  if (!out) throw std::runtime_error("FakeHub: cannot write " + p.string());
}

std::string tail_of_file(const fs::path& p, size_t max_bytes) {
  std::string s = read_whole_file(p);
  return s.size() > max_bytes ? s.substr(s.size() - max_bytes) : s;
}

}  // namespace ma::test::detail
