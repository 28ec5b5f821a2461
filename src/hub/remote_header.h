// A safetensors header read over HTTP: one range request sized by a guess (from the index, which names every
// tensor a shard holds), and one exact follow-up only when the header turns out larger. A server that ignores
// Range and answers 200 is read only up to the bytes asked for (N17): a header larger than that first read
// then fails (Network), as the follow-up cannot be fetched.
#pragma once
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.h"
#include "hub/hub_http.h"

namespace ma {

struct RemoteHeader {
  std::string prefix;  // exactly 8 + N bytes
  uint64_t file_size = 0;
  std::string etag;  // from X-Linked-Etag / ETag when it is a content hash (40/64 hex), else empty
};

// An overall cap on the header bytes fetched for one listing, shared by the threads that fetch them: each
// GGUF header may be up to GgufLimits' 512 MiB (a PyTorch file's ends up to kMaxTorchEndsBytes), and a
// hostile listing of many parts, quantizations or shards would otherwise have gigabytes fetched and held at
// once. Bytes are taken before they are asked for and the part of a read past the header is given back, so
// no more than the cap is ever in flight and held. Real headers are tens of MB at most (a 256k-token
// vocabulary is ~10-20 MB): a listing of 30 quantizations fits. `what` names the headers in the refusal.
class HeaderBudget {
 public:
  explicit HeaderBudget(uint64_t bytes, std::string what = "GGUF header")
      : total_(bytes), left_(bytes), what_(std::move(what)) {}
  // Throws Error(Limit) naming the cap when `n` more bytes are not left; every later take fails as well.
  void take(uint64_t n, const std::string& where);
  void give_back(uint64_t n);  // bytes taken but not kept
  // The first refusal, for a caller that set errors aside per input and must fail as a whole.
  std::optional<Error> refusal() const;

 private:
  mutable std::mutex mutex_;
  uint64_t total_, left_;
  std::string what_;
  std::optional<Error> refusal_;
};
inline constexpr uint64_t kMaxGgufHeaderBytesInAll = 1ull << 30;
inline constexpr uint64_t kMaxTorchEndsBytesInAll = 1ull << 30;
// Real safetensors headers are at most a few MB each (DeepSeek-V3's 163 come to 5.8 MB), each may be up to
// 100 MB (safetensors.h), and a listing reads them all.
inline constexpr uint64_t kMaxSafetensorsHeaderBytesInAll = 1ull << 30;

// `expected_size`: the file size from the model info, checked against what the server says. Each request's
// bytes are first taken from `budget`, when given.
RemoteHeader fetch_safetensors_header(HubHttp& http, const std::string& url, uint64_t first_guess,
                                      std::optional<uint64_t> expected_size, const HubTarget& target,
                                      HeaderBudget* budget = nullptr);

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

// A PyTorch checkpoint's layout read over HTTP from the file's two ends: its head (data.pkl, which torch.save
// writes first; a legacy file's pickles) and its tail (the zip's central directory), first as large as
// `guess` says, then grown by range requests, the end nearer to what the reader asks for, until
// read_torch_checkpoint(TorchRead::Layout) reads it; the storages' bytes between them are never fetched. The
// prefix returned holds both ends, packed (pack_head_tail). Malformed checkpoints are ma::Error; a layout
// that needs more than kMaxTorchEndsBytes of the file is Error(Limit).
struct TorchEndsGuess {
  uint64_t head = 0, tail = 0;
};
TorchEndsGuess torch_ends_guess(uint64_t tensor_count, uint64_t name_bytes);  // count 0: not known
// Each request's bytes are first taken from `budget`, when given.
RemoteHeader fetch_torch_ends(HubHttp& http, const std::string& url, TorchEndsGuess guess,
                              std::optional<uint64_t> expected_size, const HubTarget& target,
                              HeaderBudget* budget = nullptr);
// How fetch_torch_ends grows the ends, apart from HTTP: from the first `head` bytes of a file of `size`
// bytes, the last `tail_guess` bytes, then whatever `fetch(begin, end)` brings of [begin, end) in the gap,
// until the layout reads. Returns the ends packed.
using FetchBytes = std::function<std::string(uint64_t begin, uint64_t end)>;
std::string grow_torch_ends(std::string head, uint64_t tail_guess, uint64_t size, const std::string& where,
                            const FetchBytes& fetch);
// Whether `packed` holds both ends a file of `file_size` bytes is read from (a cached pair is used only
// then).
bool torch_ends_complete(std::string_view packed, uint64_t file_size);
inline constexpr uint64_t kMaxTorchEndsBytes = 192ull << 20;

// An ONNX model's .onnx file read whole over HTTP: a protobuf is parsed whole, and one whose weights are in
// external data files is its graph alone, small beside them. A file of more than kMaxOnnxFetchBytes
// holds its initializers inline (it is the weights) and is not fetched: the caller leaves it unread and says
// so. `size` is the listing's, checked against what the server states.
RemoteHeader fetch_onnx_model(HubHttp& http, const std::string& url, uint64_t size, const HubTarget& target);
inline constexpr uint64_t kMaxOnnxFetchBytes = 64ull << 20;

// Bytes the first range request asks for, given the tensor names a file holds: each entry of the header JSON
// is its quoted name plus at most ~80 bytes of dtype, shape and offsets; the guess errs large so that most
// shards need one request, and by at most a few percent.
uint64_t header_guess(uint64_t tensor_count, uint64_t name_bytes);
inline constexpr uint64_t kUnknownHeaderGuess = 100'000;  // huggingface_hub's first read, for unindexed files

}  // namespace ma
