// A safetensors header read over HTTP: one range request sized by a guess (from the index, which names every
// tensor a shard holds), and one exact follow-up only when the header turns out larger. A server that ignores
// Range and answers 200 is read only up to the bytes asked for (N17): a header larger than that first read
// then fails (Network), as the follow-up cannot be fetched.
#pragma once
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "core/error.h"
#include "hub/hub_http.h"

namespace ma {

struct RemoteHeader {
  std::string prefix;  // exactly 8 + N bytes
  uint64_t file_size = 0;
  std::string etag;  // from X-Linked-Etag / ETag when it is a content hash (40/64 hex), else empty
};

// `expected_size`: the file size from the model info, checked against what the server says.
RemoteHeader fetch_safetensors_header(HubHttp& http, const std::string& url, uint64_t first_guess,
                                      std::optional<uint64_t> expected_size, const HubTarget& target);

// An overall cap on the header bytes fetched for one listing, shared by the threads that fetch them: each
// GGUF header may be up to GgufLimits' 512 MiB, and a hostile listing of many parts or quantizations would
// otherwise have gigabytes fetched and held at once. Bytes are taken before they are asked for and the part
// of a read past the header is given back, so no more than the cap is ever in flight and held. Real headers
// are tens of MB at most (a 256k-token vocabulary is ~10-20 MB): a listing of 30 quantizations fits.
class HeaderBudget {
 public:
  explicit HeaderBudget(uint64_t bytes) : total_(bytes), left_(bytes) {}
  // Throws Error(Limit) naming the cap when `n` more bytes are not left; every later take fails as well.
  void take(uint64_t n, const std::string& where);
  void give_back(uint64_t n);  // bytes taken but not kept
  // The first refusal, for a caller that set errors aside per input and must fail as a whole.
  std::optional<Error> refusal() const;

 private:
  mutable std::mutex mutex_;
  uint64_t total_, left_;
  std::optional<Error> refusal_;
};
inline constexpr uint64_t kMaxGgufHeaderBytesInAll = 1ull << 30;

// A GGUF header read over HTTP. Its length is only known by parsing it, so the prefix grows by range
// requests (2 MiB first, then at least double, or as far as the parser asks) until the header parses; the
// result is exactly the header (magic to the end of the tensor infos). Malformed headers are ma::Error.
// Each request's bytes are first taken from `budget`, when given.
RemoteHeader fetch_gguf_header(HubHttp& http, const std::string& url, std::optional<uint64_t> expected_size,
                               const HubTarget& target, HeaderBudget* budget = nullptr);
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
