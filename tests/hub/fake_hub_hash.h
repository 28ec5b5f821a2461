// Hashes the fake Hub serves: sha256 and sha1 of a (possibly sparse) file's logical bytes, git blob ids, and
// the LFS pointer text whose blob id the Hub reports for an LFS file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ma::test::detail {

// The hex digest of `content` then zeros up to `total` bytes: a sparse file's logical bytes.
std::string sha256_hex(std::string_view content, uint64_t total);
std::string sha1_hex(std::string_view content, uint64_t total);
// What git (and the Hub's blobId) calls a blob's id: sha1("blob <size>\0" + bytes).
std::string git_blob_sha1(std::string_view content, uint64_t size);
std::string lfs_pointer(const std::string& sha256, uint64_t size);

}  // namespace ma::test::detail
