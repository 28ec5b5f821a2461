#include "hub/remote_header.h"

#include <algorithm>

#include "core/error.h"
#include "formats/gguf.h"
#include "formats/safetensors.h"
#include "formats/torch_checkpoint.h"
#include "hub/hub_cache.h"
#include "hub/response_headers.h"

namespace ma {
namespace {

// The file size as the server states it: Content-Range's total for a 206, else X-Linked-Size or
// Content-Length of the full body.
uint64_t stated_size(const HubResult& r, const std::string& where) {
  if (r.response.status == 206) {
    auto cr = parse_header(r.response.header("content-range"), parse_content_range);
    if (!cr) throw Error(ErrorKind::Network, where, "Content-Range", "missing or malformed in a 206 answer");
    return cr->total;
  }
  if (auto n = parse_header(r.hub_header("x-linked-size"), parse_byte_count)) return *n;
  if (auto n = parse_header(r.response.header("content-length"), parse_byte_count)) return *n;
  throw Error(ErrorKind::Network, where, "Content-Length", "the server states no file size");
}

// One ranged GET; returns the body (at most last-first+1 bytes even when the range is ignored).
HubResult get_range(HubHttp& http, const std::string& url, uint64_t first, uint64_t last,
                    const HubTarget& t) {
  HttpRequest req;
  req.range = ByteRange{first, last};
  req.max_body = last - first + 1;
  HubResult r = http.fetch(url, std::move(req), t);
  if (r.response.status == 206) {
    auto cr = parse_header(r.response.header("content-range"), parse_content_range);
    if (!cr || cr->first != first)
      throw Error(ErrorKind::Network, t.repo + "/" + t.file, "Content-Range",
                  "the server answered another range than the one asked for");
  } else if (first != 0) {
    // A 200 to a follow-up range carries the file from byte 0: not what we asked for.
    throw Error(ErrorKind::Network, t.repo + "/" + t.file, "Range",
                "the server ignores Range; a header larger than the first read cannot be fetched");
  }
  return r;
}

// The first `len` bytes of a file, with its size as the server states it (checked against the file list's)
// and its etag: what both header readers start from.
RemoteHeader first_range(HubHttp& http, const std::string& url, uint64_t len,
                         std::optional<uint64_t> expected_size, const HubTarget& target) {
  const std::string where = target.repo + "/" + target.file;
  HubResult r = get_range(http, url, 0, len - 1, target);
  RemoteHeader out;
  out.file_size = stated_size(r, where);
  if (expected_size && *expected_size != out.file_size)
    throw Error(ErrorKind::Network, where, "size",
                "the server states " + std::to_string(out.file_size) + " bytes, the file list " +
                    std::to_string(*expected_size));
  // Only a content hash names the file (remote_header.h); a mirror's own etag ("5f2b1c-49e20") is ignored.
  if (const std::string* e = r.file_etag()) out.etag = content_etag(*e).value_or("");
  out.prefix = std::move(r.response.body);
  return out;
}

}  // namespace

void HeaderBudget::take(uint64_t n, const std::string& where) {
  std::lock_guard lock(mutex_);
  if (!refusal_ && n <= left_) {
    left_ -= n;
    return;
  }
  if (!refusal_)
    refusal_ = Error(ErrorKind::Limit, where, what_,
                     "the headers of one listing may take " + std::to_string(total_ >> 20) +
                         " MiB in all (real ones are tens of MB); the listing asks for more");
  throw *refusal_;
}

void HeaderBudget::give_back(uint64_t n) {
  std::lock_guard lock(mutex_);
  left_ = std::min(total_, left_ + n);
}

std::optional<Error> HeaderBudget::refusal() const {
  std::lock_guard lock(mutex_);
  return refusal_;
}

RemoteHeader fetch_gguf_header(HubHttp& http, const std::string& url, std::optional<uint64_t> expected_size,
                               const HubTarget& target, HeaderBudget* budget) {
  const std::string where = target.repo + "/" + target.file;
  uint64_t asked =
      std::max<uint64_t>(1, expected_size ? std::min(*expected_size, kGgufFirstRead) : kGgufFirstRead);
  uint64_t taken = 0;  // from the budget
  auto take = [&](uint64_t n) {
    if (budget) budget->take(n, where);
    taken += n;
  };
  take(asked);
  RemoteHeader out = first_range(http, url, asked, expected_size, target);
  for (;;) {
    if (out.prefix.size() < asked && out.prefix.size() < out.file_size)
      throw Error(ErrorKind::Network, where, "body", "truncated: the server sent fewer bytes than asked for");
    try {
      const GgufFile g = read_gguf(PrefixSource(out.prefix, out.file_size, where));
      out.prefix.resize(g.header.size());
      out.prefix.shrink_to_fit();  // what was read past the header is given back to the budget, and freed
      if (budget) budget->give_back(taken - std::min<uint64_t>(taken, out.prefix.size()));
      return out;
    } catch (const BytesNotFetched& more) {
      // The parser's caps (GgufLimits) bound how far this grows: it refuses a larger header before asking.
      asked = std::min(out.file_size, std::max<uint64_t>(more.end, 2 * out.prefix.size()));
      take(asked - std::min<uint64_t>(asked, out.prefix.size()));
      HubResult next = get_range(http, url, out.prefix.size(), asked - 1, target);
      out.prefix += next.response.body;
    }
  }
}

bool gguf_header_complete(std::string_view prefix, uint64_t file_size) {
  try {
    return read_gguf(PrefixSource(prefix, file_size, "cached header")).header.size() == prefix.size();
  } catch (const BytesNotFetched&) {
    return false;
  } catch (const Error&) {
    return false;
  }
}

TorchEndsGuess torch_ends_guess(uint64_t tensor_count, uint64_t name_bytes) {
  // The head: data.pkl's local header, then per tensor its name and ~100 bytes of pickle (the rebuild call,
  // the storage's persistent id, shape and strides), then the small byteorder member. The tail: the zip's
  // end records behind at most 64 KiB of comment (where the end record is searched for), and the central
  // directory, ~100 bytes per storage member (46, the member's name, a zip64 field).
  if (tensor_count == 0) return {256 << 10, 128 << 10};
  return {4096 + name_bytes + 128 * tensor_count, 22 + 0xffff + 4096 + 128 * tensor_count};
}

std::string grow_torch_ends(std::string head, uint64_t tail_guess, uint64_t size, const std::string& where,
                            const FetchBytes& fetch) {
  if (head.size() > size) head.resize(size);
  std::string tail;
  auto take = [&](uint64_t begin, uint64_t end) {  // [begin, end), inside the gap between the ends
    if (head.size() + tail.size() + (end - begin) > kMaxTorchEndsBytes)
      throw Error(ErrorKind::Limit, where, "PyTorch checkpoint layout",
                  "reading it takes more than " + std::to_string(kMaxTorchEndsBytes >> 20) +
                      " MiB of the file's bytes (data.pkl is at most a few MB in a real one)");
    std::string bytes = fetch(begin, end);
    if (bytes.size() != end - begin)
      throw Error(ErrorKind::Network, where, "body", "truncated: the server sent fewer bytes than asked for");
    return bytes;
  };
  if (const uint64_t tail_len = std::min(tail_guess, size - head.size()); tail_len)
    tail = take(size - tail_len, size);
  for (;;) {
    try {
      read_torch_checkpoint(HeadTailSource(head, tail, size, where), TorchRead::Layout);
      return pack_head_tail(head, tail);
    } catch (const BytesNotFetched& more) {
      // Grow the end nearer to the bytes asked for, at least doubling it: a read far into the gap costs a
      // few requests, and every request is bounded by kMaxTorchEndsBytes.
      const uint64_t gap_begin = head.size(), gap_end = size - tail.size();
      const uint64_t past_head = more.begin > gap_begin ? more.begin - gap_begin : 0;
      const uint64_t before_tail = more.end < gap_end ? gap_end - more.end : 0;
      if (past_head <= before_tail) {
        head += take(gap_begin, std::min(gap_end, std::max(more.end, 2 * head.size())));
      } else {
        const uint64_t doubled = size - std::min(size, 2 * tail.size());
        tail.insert(0, take(std::max(gap_begin, std::min(more.begin, doubled)), gap_end));
      }
    }
  }
}

RemoteHeader fetch_torch_ends(HubHttp& http, const std::string& url, TorchEndsGuess guess,
                              std::optional<uint64_t> expected_size, const HubTarget& target,
                              HeaderBudget* budget) {
  const std::string where = target.repo + "/" + target.file;
  const uint64_t first =
      std::max<uint64_t>(1, expected_size ? std::min(*expected_size, guess.head) : guess.head);
  if (budget) budget->take(first, where);
  RemoteHeader out = first_range(http, url, first, expected_size, target);
  if (out.prefix.size() < std::min(first, out.file_size))
    throw Error(ErrorKind::Network, where, "body", "truncated: the server sent fewer bytes than asked for");
  out.prefix = grow_torch_ends(std::move(out.prefix), guess.tail, out.file_size, where,
                               [&](uint64_t begin, uint64_t end) {
                                 if (budget) budget->take(end - begin, where);
                                 return std::move(get_range(http, url, begin, end - 1, target).response.body);
                               });
  return out;
}

bool torch_ends_complete(std::string_view packed, uint64_t file_size) {
  const std::optional<HeadAndTail> ends = unpack_head_tail(packed);
  if (!ends || ends->head.size() > file_size || ends->tail.size() > file_size) return false;
  try {
    read_torch_checkpoint(HeadTailSource(ends->head, ends->tail, file_size, "cached ends"),
                          TorchRead::Layout);
    return true;
  } catch (const BytesNotFetched&) {
    return false;
  } catch (const Error&) {
    return false;
  }
}

RemoteHeader fetch_onnx_model(HubHttp& http, const std::string& url, uint64_t size, const HubTarget& target) {
  const std::string where = target.repo + "/" + target.file;
  if (size == 0 || size > kMaxOnnxFetchBytes)
    throw Error(ErrorKind::Limit, where, "size",
                std::to_string(size) + " bytes: an ONNX graph is fetched when it holds 1 to " +
                    std::to_string(kMaxOnnxFetchBytes >> 20) + " MiB");
  RemoteHeader out = first_range(http, url, size, size, target);
  if (out.prefix.size() != size)
    throw Error(ErrorKind::Network, where, "body", "truncated: the server sent fewer bytes than asked for");
  return out;
}

uint64_t header_guess(uint64_t tensor_count, uint64_t name_bytes) {
  // Per entry: quotes, colon and comma (4), {"dtype":"BF16","shape":[..],"data_offsets":[..,..]} with up to
  // three 6-digit dims and two 12-digit offsets (~76); plus __metadata__ and the 8-byte prefix.
  return 8 + 256 + name_bytes + tensor_count * 80;
}

RemoteHeader fetch_safetensors_header(HubHttp& http, const std::string& url, uint64_t first_guess,
                                      std::optional<uint64_t> expected_size, const HubTarget& target,
                                      HeaderBudget* budget) {
  const std::string where = target.repo + "/" + target.file;
  if (expected_size && first_guess > *expected_size) first_guess = *expected_size;
  if (first_guess < 8) first_guess = 8;
  if (budget) budget->take(first_guess, where);
  RemoteHeader out = first_range(http, url, first_guess, expected_size, target);
  if (out.prefix.size() < 8 && out.prefix.size() < out.file_size)
    throw Error(ErrorKind::Network, where, "body", "truncated: fewer bytes than the 8-byte length prefix");
  const uint64_t n =
      safetensors_header_length(std::string_view(out.prefix).substr(0, 64), out.file_size, where);
  const uint64_t need = 8 + n;
  if (out.prefix.size() < need) {
    if (out.prefix.size() < first_guess && out.prefix.size() < out.file_size)
      throw Error(ErrorKind::Network, where, "body", "truncated: the server sent fewer bytes than asked for");
    if (budget) budget->take(need - out.prefix.size(), where);
    HubResult more = get_range(http, url, out.prefix.size(), need - 1, target);
    out.prefix += more.response.body;
    if (out.prefix.size() < need)
      throw Error(ErrorKind::Network, where, "body", "truncated: the header ends before its declared length");
  }
  // What was read past the header is given back (first_guess errs large), and freed.
  if (budget && first_guess > need) budget->give_back(first_guess - need);
  out.prefix.resize(need);
  out.prefix.shrink_to_fit();
  return out;
}

}  // namespace ma
