#include "hub/model_info.h"

#include <unordered_map>

#include "core/error.h"
#include "core/json.h"
#include "hub/repo_ref.h"

namespace ma {
namespace {

std::string text(const json::Value& obj, std::string_view key) {
  const json::Value* v = obj.find(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::optional<uint64_t> count(const json::Value& obj, std::string_view key) {
  const json::Value* v = obj.find(key);
  return v ? v->as_uint() : std::nullopt;
}

std::string license_of(const json::Value& root) {
  if (const json::Value* card = root.find("cardData")) {
    if (const json::Value* l = card->find("license")) {
      if (l->is_string()) return std::string(l->as_string());
      if (l->is_array() && !l->items().empty() && l->items()[0].is_string())
        return std::string(l->items()[0].as_string());
    }
  }
  if (const json::Value* tags = root.find("tags"); tags && tags->is_array())
    for (const json::Value& t : tags->items())
      if (t.is_string() && t.as_string().rfind("license:", 0) == 0)
        return std::string(t.as_string().substr(8));
  return {};
}

bool is_hex(std::string_view s, size_t n) {
  if (s.size() != n) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::optional<uint64_t> listed_bytes(const std::vector<const RepoFile*>& files) {
  uint64_t total = 0;
  for (const RepoFile* f : files) {
    if (!f->size) return std::nullopt;
    total += *f->size;
  }
  return total;
}

const RepoFile* HubModelInfo::file(std::string_view path) const {
  for (const RepoFile& f : files)
    if (f.path == path) return &f;
  return nullptr;
}

HubModelInfo parse_model_info(std::string json_text, std::string_view source) {
  json::Limits limits;
  limits.max_bytes = 64u << 20;
  json::Document doc = json::Document::parse(std::move(json_text), source, limits);
  const json::Value& root = doc.root();
  if (!root.is_object())
    throw Error(ErrorKind::Malformed, std::string(source), "", "model info is not a JSON object");
  HubModelInfo info;
  info.id = text(root, "id");
  info.commit = text(root, "sha");
  if (!is_commit_hash(info.commit))
    throw Error(ErrorKind::Malformed, std::string(source), "sha", "missing or not a 40-hex commit hash");
  info.author = text(root, "author");
  info.downloads = count(root, "downloads");
  info.likes = count(root, "likes");
  info.license = license_of(root);
  if (const json::Value* g = root.find("gated"))
    info.gated =
        g->is_string() ? std::string(g->as_string()) : (g->is_bool() && g->as_bool() ? "true" : "false");
  if (const json::Value* p = root.find("private"); p && p->is_bool()) info.is_private = p->as_bool();
  info.pipeline_tag = text(root, "pipeline_tag");
  info.library_name = text(root, "library_name");
  info.last_modified = text(root, "lastModified");
  const json::Value* siblings = root.find("siblings");
  if (!siblings || !siblings->is_array())
    throw Error(ErrorKind::Malformed, std::string(source), "siblings", "model info lacks the file list");
  // A path listed twice would be written twice at once (two temp files racing for one name, a file counted
  // twice): the same entry again is dropped; two different ones are the server's fault, as nothing says
  // which to trust.
  std::unordered_map<std::string, size_t> seen;  // path -> its entry in info.files
  for (const json::Value& s : siblings->items()) {
    RepoFile f;
    f.path = text(s, "rfilename");
    validate_repo_filename(f.path, source);
    f.size = count(s, "size");
    f.blob_id = text(s, "blobId");
    if (const json::Value* lfs = s.find("lfs"); lfs && lfs->is_object()) {
      f.lfs_sha256 = text(*lfs, "sha256");
      if (!is_hex(f.lfs_sha256, 64))
        throw Error(ErrorKind::Malformed, std::string(source), "siblings['" + f.path + "'].lfs.sha256",
                    "not a 64-hex sha256");
      if (!f.size) f.size = count(*lfs, "size");
    }
    if (const auto [it, fresh] = seen.emplace(f.path, info.files.size()); !fresh) {
      const RepoFile& first = info.files[it->second];
      if (first.size == f.size && first.blob_id == f.blob_id && first.lfs_sha256 == f.lfs_sha256) continue;
      throw Error(ErrorKind::Network, std::string(source), "siblings['" + f.path + "']",
                  "the file list names this file twice, with different sizes or hashes");
    }
    info.files.push_back(std::move(f));
  }
  return info;
}

}  // namespace ma
