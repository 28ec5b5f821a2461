// The fake Hub's served tree under www/.
#include "fake_hub_tree.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>
#include <string_view>

#include "fake_hub_info.h"
#include "fake_hub_io.h"

namespace ma::test::detail {

namespace fs = std::filesystem;

namespace {

constexpr uint64_t kTruncatedBytes = 64;

void write_all(int fd, const char* data, size_t n, const fs::path& p) {
  while (n > 0) {
    const ssize_t w = ::write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw std::runtime_error("FakeHub: write failed on " + p.string());
    data += w;
    n -= static_cast<size_t>(w);
  }
}

// `content` then zeros up to `size`; the zeros are a hole (ftruncate), so a 5 GB shard costs no disk.
void write_sparse_file(const fs::path& p, std::string_view content, uint64_t size) {
  fs::create_directories(p.parent_path());
  Fd fd(::open(p.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
  if (fd.get() < 0) throw std::runtime_error("FakeHub: cannot create " + p.string());
  write_all(fd.get(), content.data(), static_cast<size_t>(std::min<uint64_t>(content.size(), size)), p);
  if (::ftruncate(fd.get(), static_cast<off_t>(size)) != 0)
    throw std::runtime_error("FakeHub: ftruncate failed on " + p.string());
}

void invert_byte(const fs::path& p, uint64_t offset, std::string_view content) {
  const unsigned char original = offset < content.size() ? static_cast<unsigned char>(content[offset]) : 0;
  const char flipped = static_cast<char>(~original);
  Fd fd(::open(p.c_str(), O_WRONLY | O_CLOEXEC));
  if (fd.get() < 0 || ::pwrite(fd.get(), &flipped, 1, static_cast<off_t>(offset)) != 1)
    throw std::runtime_error("FakeHub: cannot corrupt " + p.string());
}

void write_blob(const Layout& lay, const RepoPlan& r, const FilePlan& f) {
  const fs::path p = lay.blob(r, f);
  uint64_t served = f.size;
  if (r.mode == Mode::Truncated) served = f.size > kTruncatedBytes ? f.size - kTruncatedBytes : 0;
  write_sparse_file(p, f.file.content, served);
  if (r.mode == Mode::Corrupt && f.size > 0) invert_byte(p, f.size / 2, f.file.content);
}

void write_repo_tree(const Layout& lay, const RepoPlan& r) {
  write_whole_file(lay.api_json(r), model_info_json(r));
  for (const FilePlan& f : r.files) {
    if (f.file.lfs)
      write_blob(lay, r, f);
    else
      write_sparse_file(lay.hub_file(r, f), f.file.content, f.size);
  }
}

}  // namespace

void write_served_tree(const Layout& lay, const std::vector<RepoPlan>& repos) {
  fs::remove_all(lay.www());
  fs::create_directories(lay.empty_root());
  fs::create_directories(lay.tmp());
  for (const RepoPlan& r : repos) write_repo_tree(lay, r);
}

}  // namespace ma::test::detail
