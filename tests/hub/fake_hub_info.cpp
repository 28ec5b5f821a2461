// The model-info JSON the fake Hub serves at /api/models/{id}.
#include "fake_hub_info.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

#include "fake_hub_text.h"

namespace ma::test::detail {

namespace {

constexpr const char* kLastModified = "2026-01-01T00:00:00.000Z";

size_t closing_quote(std::string_view s, size_t open) {
  size_t i = open + 1;
  while (i < s.size() && s[i] != '"') i += (s[i] == '\\') ? 2 : 1;
  return std::min(i, s.size());
}

// The member names at the top level of a JSON fragment like "\"downloads\":12,\"cardData\":{\"x\":1}".
std::set<std::string> top_level_keys(std::string_view s) {
  std::set<std::string> keys;
  int depth = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '"') {
      const size_t end = closing_quote(s, i);
      const size_t next = s.find_first_not_of(" \t\r\n", end + 1);
      if (depth == 0 && next != std::string_view::npos && s[next] == ':')
        keys.insert(std::string(s.substr(i + 1, end - i - 1)));
      i = end;
    } else if (s[i] == '{' || s[i] == '[') {
      ++depth;
    } else if (s[i] == '}' || s[i] == ']') {
      --depth;
    }
  }
  return keys;
}

std::string sibling_json(const FilePlan& f) {
  std::string s = "{\"rfilename\":" + json_string(f.file.path) + ",\"size\":" + std::to_string(f.size) +
                  ",\"blobId\":\"" + f.blob_id + "\"";
  if (f.file.lfs)
    s += ",\"lfs\":{\"sha256\":\"" + f.etag + "\",\"size\":" + std::to_string(f.size) +
         ",\"pointerSize\":" + std::to_string(f.pointer_size) + "}";
  return s + "}";
}

std::vector<std::pair<std::string, std::string>> default_info_members(const RepoPlan& r) {
  const std::string author = r.id.substr(0, r.id.find('/'));
  return {{"_id", json_string(r.commit.substr(0, 24))},
          {"id", json_string(r.id)},
          {"modelId", json_string(r.id)},
          {"author", json_string(author)},
          {"sha", json_string(r.commit)},
          {"private", r.mode == Mode::Private ? "true" : "false"},
          {"gated", r.mode == Mode::Gated ? "\"manual\"" : "false"},
          {"disabled", "false"},
          {"downloads", "0"},
          {"likes", "0"},
          {"tags", "[]"},
          {"lastModified", json_string(kLastModified)}};
}

}  // namespace

std::string model_info_json(const RepoPlan& r) {
  const std::set<std::string> overridden = top_level_keys(r.info_json_fields);
  std::vector<std::string> members;
  for (const auto& [name, value] : default_info_members(r))
    if (!overridden.count(name)) members.push_back(json_string(name) + ":" + value);
  if (!r.info_json_fields.empty()) members.push_back(r.info_json_fields);
  if (!overridden.count("siblings")) {
    std::vector<std::string> siblings;
    for (const FilePlan& f : r.files) siblings.push_back(sibling_json(f));
    members.push_back("\"siblings\":[" + join(siblings, ",") + "]");
  }
  return "{" + join(members, ",") + "}";
}

}  // namespace ma::test::detail
