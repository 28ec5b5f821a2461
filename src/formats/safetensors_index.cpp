#include "formats/safetensors_index.h"

#include <algorithm>
#include <unordered_map>

#include "core/byte_count.h"
#include "core/error.h"
#include "core/json.h"

namespace ma {

bool is_contained_relative_path(std::string_view name) {
  if (name.empty() || name.front() == '/' || name.find('\\') != std::string_view::npos ||
      name.find('\0') != std::string_view::npos || name.find(':') != std::string_view::npos)
    return false;
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = name.find('/', start);
    std::string_view part =
        name.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

namespace {

std::optional<uint64_t> read_total_size(json::Reader& r, const std::string& src) {
  if (r.peek() == json::Reader::Kind::Null) {
    r.null();
    return std::nullopt;
  }
  if (r.peek() != json::Reader::Kind::Number)
    throw Error(ErrorKind::Malformed, src, "metadata.total_size", "must be a non-negative integer");
  json::Number n = r.number();
  if (auto u = n.as_uint()) return *u;
  // Some writers emit total_size as a float literal ("1.5e10" or "123.0"); accept exact integral values.
  if (n.value >= 0 && n.value < 1.8e19 && static_cast<double>(static_cast<uint64_t>(n.value)) == n.value)
    return static_cast<uint64_t>(n.value);
  throw Error(ErrorKind::Malformed, src, "metadata.total_size", "must be a non-negative integer");
}

}  // namespace

// The index in `text`, which `owner` keeps alive as long as the index's names point into it.
SafetensorsIndex parse_index_text(std::shared_ptr<const void> owner, std::string_view text,
                                  std::string_view source) {
  json::Limits limits;
  limits.max_bytes = kMaxIndexBytes;
  json::check_document_size(text, source, limits);
  SafetensorsIndex idx;
  auto names = std::make_shared<std::deque<std::string>>();
  json::Reader r(text, source, limits);
  std::string src(source);
  if (r.peek() != json::Reader::Kind::Object)
    throw Error(ErrorKind::Malformed, src, "", "index must be a JSON object");

  std::unordered_map<std::string, uint32_t> shard_ids;
  // Consecutive entries almost always name the same shard: remember the last one instead of hashing.
  std::string last_shard;
  uint32_t last_id = 0;
  // One ':' per entry at least: an upper bound that spares the weight map's doubling copies.
  idx.weight_map.reserve(count_byte(text, ':'));
  bool seen_map = false;
  r.begin_object();
  std::string_view key;
  while (r.next_member(key)) {
    if (key == "metadata" && r.peek() == json::Reader::Kind::Object) {
      r.begin_object();
      std::string_view mk;
      while (r.next_member(mk)) {
        if (mk == "total_size")
          idx.total_size = read_total_size(r, src);
        else
          r.skip();
      }
    } else if (key == "weight_map") {
      if (r.peek() != json::Reader::Kind::Object)
        throw Error(ErrorKind::Malformed, src, "weight_map", "missing or not an object");
      if (seen_map)  // Python's json, which transformers reads it with, would keep only the last
        throw Error(ErrorKind::Malformed, src, "weight_map", "a second weight_map in the index");
      seen_map = true;
      r.begin_object();
      std::string_view name;
      while (r.next_member(name)) {
        // Keys with escapes live in the reader's scratch buffer until the next string: keep a copy.
        std::string_view tensor = r.in_text(name) ? name : std::string_view(names->emplace_back(name));
        // Entries of one shard follow one another: the previous entry's shard again is one comparison.
        if (!idx.weight_map.empty() && r.take_string(last_shard)) {
          idx.weight_map.emplace_back(tensor, last_id);
          continue;
        }
        if (r.peek() != json::Reader::Kind::String)
          throw Error(ErrorKind::Malformed, src, "weight_map['" + printable(tensor) + "']",
                      "shard name must be a string");
        std::string_view shard = r.string();
        if (idx.weight_map.empty() || shard != last_shard) {
          if (!is_contained_relative_path(shard))
            throw Error(ErrorKind::Unsafe, src, "weight_map['" + printable(tensor) + "']",
                        "shard path '" + printable(shard) + "' escapes the model directory");
          last_shard.assign(shard);
          auto it = shard_ids.find(last_shard);
          if (it == shard_ids.end()) {
            if (idx.shards.size() >= kMaxShards)
              throw Error(ErrorKind::Limit, src, "weight_map",
                          "more than " + std::to_string(kMaxShards) + " shard files");
            it = shard_ids.emplace(last_shard, static_cast<uint32_t>(idx.shards.size())).first;
            idx.shards.push_back(last_shard);
          }
          last_id = it->second;
        }
        idx.weight_map.emplace_back(tensor, last_id);
      }
    } else {
      r.skip();
    }
  }
  r.finish();
  if (!seen_map) throw Error(ErrorKind::Malformed, src, "weight_map", "missing or not an object");

  using Entry = std::pair<std::string_view, uint32_t>;
  auto lookup = std::make_shared<const NameIndex>(
      static_cast<uint32_t>(idx.weight_map.size()),
      [](const void* c, uint32_t i) { return static_cast<const Entry*>(c)[i].first; }, idx.weight_map.data());
  // A tensor listed twice would make its shard ambiguous.
  if (auto dup = lookup->first_duplicate())
    throw Error(ErrorKind::Malformed, src, "weight_map['" + printable(idx.weight_map[*dup].first) + "']",
                "tensor listed twice");
  idx.text_ = std::move(owner);
  idx.names_ = std::move(names);
  idx.lookup_ = std::move(lookup);
  return idx;
}

SafetensorsIndex parse_safetensors_index(std::string json_text, std::string_view source) {
  auto text = std::make_shared<const std::string>(std::move(json_text));
  const std::string_view view = *text;
  return parse_index_text(std::move(text), view, source);
}

SafetensorsIndex parse_safetensors_index(FileBytes json_text, std::string_view source) {
  const std::string_view view = json_text.view();
  return parse_index_text(std::shared_ptr<const char[]>(std::move(json_text.data)), view, source);
}

}  // namespace ma
