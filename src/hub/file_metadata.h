// A file's etag and size as the resolve endpoint states them, for a listing that gives neither (a mirror's,
// an API answer without blobs=true): one HEAD request, read as huggingface_hub's get_hf_file_metadata reads
// it — X-Linked-Etag, else ETag, from the endpoint itself (a CDN's own etag names nothing), and
// X-Linked-Size, else the final answer's Content-Length.
#pragma once
#include <atomic>
#include <cstdint>
#include <string>

#include "hub/hub_http.h"

namespace ma {

struct FileMetadata {
  std::string etag;  // 40 or 64 lower-case hex: a content hash the bytes are checked against
  uint64_t size = 0;
};

// Throws Error(Network) naming `where` when the server states no content hash (none, or its own kind of
// etag, "5f2b1c-49e20") or no size: the file could not be checked, so it is not downloaded.
FileMetadata fetch_file_metadata(HubHttp& http, const std::string& url, const HubTarget& target,
                                 const std::string& where, const std::atomic<bool>* cancel = nullptr);

}  // namespace ma
