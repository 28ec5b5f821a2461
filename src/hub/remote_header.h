// A safetensors header read over HTTP: one range request sized by a guess (from the index, which names every
// tensor a shard holds), and one exact follow-up only when the header turns out larger. A server that ignores
// Range and answers 200 is read only up to the bytes asked for (N17).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hub/hub_http.h"

namespace ma {

struct RemoteHeader {
  std::string prefix;  // exactly 8 + N bytes
  uint64_t file_size = 0;
  std::string etag;  // from X-Linked-Etag / ETag (checked hex), when the server sent one
};

// `expected_size`: the file size from the model info, checked against what the server says.
RemoteHeader fetch_safetensors_header(HubHttp& http, const std::string& url, uint64_t first_guess,
                                      std::optional<uint64_t> expected_size, const HubTarget& target);

// A GGUF header read over HTTP. Its length is only known by parsing it, so the prefix grows by range
// requests (2 MiB first, then at least double, or as far as the parser asks) until the header parses; the
// result is exactly the header (magic to the end of the tensor infos). Malformed headers are ma::Error.
RemoteHeader fetch_gguf_header(HubHttp& http, const std::string& url, std::optional<uint64_t> expected_size,
                               const HubTarget& target);
// Whether `prefix` holds a whole GGUF header of a file of `file_size` bytes (a cached header is used only
// then).
bool gguf_header_complete(std::string_view prefix, uint64_t file_size);
inline constexpr uint64_t kGgufFirstRead = 2 << 20;

// Bytes the first range request asks for, given the tensor names a file holds: each entry of the header JSON
// is its quoted name plus at most ~80 bytes of dtype, shape and offsets; the guess errs large so that most
// shards need one request, and by at most a few percent.
uint64_t header_guess(uint64_t tensor_count, uint64_t name_bytes);
inline constexpr uint64_t kUnknownHeaderGuess = 100'000;  // huggingface_hub's first read, for unindexed files

}  // namespace ma
