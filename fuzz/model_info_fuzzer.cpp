// The models API's answer (hub/model_info.h): whatever the server sends is either refused with ma::Error or
// yields a commit of 40 hex, LFS hashes of 64 hex and file names that stay inside the repository.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "hub/model_info.h"
#include "hub/repo_ref.h"

namespace {

bool lower_hex(const std::string& s, size_t n) {
  if (s.size() != n) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  ma::HubModelInfo info;
  try {
    info = ma::parse_model_info(std::move(text), "fuzz model info");
  } catch (const ma::Error&) {
    return 0;
  }
  if (!ma::is_commit_hash(info.commit)) __builtin_trap();
  for (const ma::RepoFile& f : info.files) {
    if (!f.lfs_sha256.empty() && !lower_hex(f.lfs_sha256, 64)) __builtin_trap();
    try {
      ma::validate_repo_filename(f.path, "fuzz");
    } catch (const ma::Error&) {
      __builtin_trap();  // parse_model_info let an escaping name through
    }
    if (info.file(f.path) == nullptr) __builtin_trap();
  }
  return 0;
}
