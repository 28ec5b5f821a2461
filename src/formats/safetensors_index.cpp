#include "formats/safetensors_index.h"

#include <unordered_map>

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
    std::string_view part = name.substr(start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return true;
}

SafetensorsIndex parse_safetensors_index(std::string_view json_text, std::string_view source) {
  json::Limits limits;
  limits.max_bytes = kMaxIndexBytes;
  json::Document doc = json::Document::parse(std::string(json_text), source, limits);
  const json::Value& root = doc.root();
  std::string src(source);
  if (!root.is_object()) throw Error(ErrorKind::Malformed, src, "", "index must be a JSON object");
  const json::Value* map = root.find("weight_map");
  if (!map || !map->is_object()) throw Error(ErrorKind::Malformed, src, "weight_map", "missing or not an object");

  SafetensorsIndex idx;
  if (const json::Value* meta = root.find("metadata"); meta && meta->is_object()) {
    if (const json::Value* ts = meta->find("total_size"); ts && !ts->is_null()) {
      // Some writers emit total_size as a float literal ("1.5e10" or "123.0"); accept exact integral values.
      if (auto u = ts->as_uint()) idx.total_size = *u;
      else if (ts->is_number() && ts->as_double() >= 0 && ts->as_double() < 1.8e19 &&
               static_cast<double>(static_cast<uint64_t>(ts->as_double())) == ts->as_double())
        idx.total_size = static_cast<uint64_t>(ts->as_double());
      else
        throw Error(ErrorKind::Malformed, src, "metadata.total_size", "must be a non-negative integer");
    }
  }

  std::unordered_map<std::string_view, uint32_t> shard_ids;
  std::unordered_map<std::string_view, bool> names;
  names.reserve(map->members().size());
  idx.weight_map.reserve(map->members().size());
  for (const json::Member& m : map->members()) {
    if (!m.value.is_string())
      throw Error(ErrorKind::Malformed, src, "weight_map['" + printable(m.key) + "']", "shard name must be a string");
    std::string_view shard = m.value.as_string();
    if (!is_contained_relative_path(shard))
      throw Error(ErrorKind::Unsafe, src, "weight_map['" + printable(m.key) + "']",
                  "shard path '" + printable(shard) + "' escapes the model directory");
    if (!names.emplace(m.key, true).second)
      throw Error(ErrorKind::Malformed, src, "weight_map['" + printable(m.key) + "']", "tensor listed twice");
    auto [it, inserted] = shard_ids.emplace(shard, static_cast<uint32_t>(idx.shards.size()));
    if (inserted) {
      if (idx.shards.size() >= kMaxShards)
        throw Error(ErrorKind::Limit, src, "weight_map", "more than " + std::to_string(kMaxShards) + " shard files");
      idx.shards.emplace_back(shard);
    }
    idx.weight_map.emplace_back(std::string(m.key), it->second);
  }
  return idx;
}

}  // namespace ma
