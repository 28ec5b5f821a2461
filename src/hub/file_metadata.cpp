#include "hub/file_metadata.h"

#include <optional>

#include "core/error.h"
#include "hub/hub_cache.h"
#include "hub/response_headers.h"

namespace ma {

FileMetadata fetch_file_metadata(HubHttp& http, const std::string& url, const HubTarget& target,
                                 const std::string& where, const std::atomic<bool>* cancel) {
  HttpRequest req;
  req.head = true;
  req.cancel = cancel;
  const HubResult r = http.fetch(url, std::move(req), target);
  const std::string* raw = r.file_etag();
  const std::optional<std::string> etag = raw ? content_etag(*raw) : std::nullopt;
  if (!etag)
    throw Error(
        ErrorKind::Network, where, "ETag",
        raw ? "the file list gives no hash, and the server's etag (" + printable(*raw) +
                  ") is not a content hash: the file cannot be checked"
            : "the file list gives no hash, and the server sends no etag: the file cannot be checked");
  std::optional<uint64_t> size = parse_header(r.hub_header("x-linked-size"), parse_byte_count);
  if (!size) size = parse_header(r.response.header("content-length"), parse_byte_count);
  if (!size)
    throw Error(ErrorKind::Network, where, "Content-Length",
                "the file list gives no size, and the server states none");
  return {*etag, *size};
}

}  // namespace ma
