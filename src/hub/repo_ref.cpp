#include "hub/repo_ref.h"

#include <algorithm>
#include <cctype>

#include "core/error.h"

namespace ma {
namespace {

bool id_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
}

// A model file's name ("x.gguf"): never a repo id nor a GGUF model's quantization name.
bool has_model_file_extension(std::string_view name) {
  for (std::string_view ext : {".json", ".safetensors", ".gguf", ".bin", ".onnx", ".pt", ".pth"})
    if (name.size() > ext.size() && name.substr(name.size() - ext.size()) == ext) return true;
  return false;
}

std::string_view strip_prefix(std::string_view s, std::string_view prefix) {
  return s.rfind(prefix, 0) == 0 ? s.substr(prefix.size()) : std::string_view();
}

// A URL path segment as the browser shows it: "%2F" in "refs%2Fpr%2F1", "%20" in a file name. A '%' that
// starts no escape is kept as it is.
std::string hub_url_unquote(std::string_view s) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// "https://huggingface.co/org/name[/tree/rev|/blob/rev/FILE|/resolve/rev/FILE]" -> "org/name", rev, FILE.
std::optional<RepoRef> parse_hub_url(std::string_view arg) {
  // "https://user:token@host/...": a token in a URL ends up in logs and shell history (T5).
  if (size_t scheme = arg.find("://"); scheme != std::string_view::npos) {
    std::string_view authority = arg.substr(scheme + 3, arg.find('/', scheme + 3) - (scheme + 3));
    if (authority.find('@') != std::string_view::npos)
      throw Error(ErrorKind::Usage, "model id", "", "credentials in a URL are not accepted; use HF_TOKEN");
  }
  std::string_view rest;
  for (std::string_view host :
       {"https://huggingface.co/", "http://huggingface.co/", "https://hf.co/", "huggingface.co/", "hf.co/"})
    if (!(rest = strip_prefix(arg, host)).empty()) break;
  if (rest.empty()) return std::nullopt;
  RepoRef ref;
  size_t cut = rest.find_first_of("?#");
  rest = rest.substr(0, cut);
  size_t first = rest.find('/');
  size_t second = first == std::string_view::npos ? first : rest.find('/', first + 1);
  // Canonical repos have no organization: "gpt2/tree/main" (exactly three segments: "org/tree/x" would be a
  // repo named tree), "gpt2/blob/main/config.json", "gpt2/resolve/main/...".
  if (first != std::string_view::npos) {
    const std::string_view after = rest.substr(first + 1);
    const bool tree = after.starts_with("tree/") && after.find('/', 5) == std::string_view::npos;
    if (tree || after.starts_with("blob/") || after.starts_with("resolve/")) second = first;
  }
  ref.id = std::string(rest.substr(0, second));
  if (second != std::string_view::npos) {
    std::string_view tail = rest.substr(second + 1);
    for (std::string_view kind : {"tree/", "blob/", "resolve/"}) {
      std::string_view rev = strip_prefix(tail, kind);
      if (rev.empty()) continue;
      // The revision is one segment here, as the Hub writes it ("refs%2Fpr%2F1"; a branch with a slash must
      // be given as id@rev).
      const size_t slash = rev.find('/');
      ref.revision = hub_url_unquote(rev.substr(0, slash));
      ref.explicit_revision = true;
      // A file's page or its download names that file (a folder's page, under tree/, names no file).
      if (kind != "tree/" && slash != std::string_view::npos && slash + 1 < rev.size()) {
        ref.file = hub_url_unquote(rev.substr(slash + 1));
        validate_repo_filename(*ref.file, "URL");
      }
    }
  }
  while (!ref.id.empty() && ref.id.back() == '/') ref.id.pop_back();
  return ref;
}

}  // namespace

bool is_commit_hash(std::string_view s) {
  if (s.size() != 40) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c)) || std::isupper(static_cast<unsigned char>(c)))
      return false;
  return true;
}

void validate_repo_id(std::string_view id) {
  auto bad = [&](const std::string& why) {
    throw Error(ErrorKind::Usage, "model id '" + std::string(id.substr(0, 120)) + "'", "", why);
  };
  if (id.empty()) bad("empty repo id");
  if (id.size() > 96) bad("repo id longer than 96 characters");
  if (id.find("--") != std::string_view::npos || id.find("..") != std::string_view::npos)
    bad("'--' and '..' are not allowed in a repo id");
  size_t slashes = 0;
  for (size_t i = 0; i < id.size(); ++i) {
    char c = id[i];
    if (c == '/') {
      if (++slashes > 1 || i == 0 || i + 1 == id.size()) bad("a repo id is 'name' or 'org/name'");
      continue;
    }
    if (!id_char(c)) bad("a repo id holds only letters, digits, '-', '_' and '.'");
  }
  for (size_t start = 0; start < id.size();) {
    size_t end = id.find('/', start);
    std::string_view part = id.substr(start, end == std::string_view::npos ? id.npos : end - start);
    if (part.front() == '-' || part.front() == '.' || part.back() == '-' || part.back() == '.')
      bad("a repo id part cannot start or end with '-' or '.'");
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
}

void validate_revision(std::string_view revision) {
  // Named as the user wrote it (after '@' or with --revision), as validate_repo_id names the id.
  auto bad = [&](const std::string& why) {
    throw Error(ErrorKind::Usage, "revision '" + printable(revision, 120) + "'", "", why);
  };
  if (revision.empty()) bad("empty: a revision is a branch, a tag or a commit");
  if (revision.size() > 255) bad("revision longer than 255 characters");
  for (char c : revision)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '\\') bad("control character or '\\'");
  // It becomes refs/{revision} in the cache: no segment may climb out of it.
  for (size_t start = 0;;) {
    size_t end = revision.find('/', start);
    std::string_view part =
        revision.substr(start, end == std::string_view::npos ? revision.npos : end - start);
    if (part.empty() || part == "." || part == "..") bad("an empty, '.' or '..' segment");
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
}

void validate_repo_filename(std::string_view path, std::string_view source) {
  auto bad = [&](const std::string& why) {
    throw Error(ErrorKind::Unsafe, std::string(source), "file '" + std::string(path.substr(0, 200)) + "'",
                "invalid repo filename: " + why);
  };
  if (path.empty()) bad("empty");
  if (path.size() > 1024) bad("longer than 1024 characters");
  if (path.front() == '/' || path.front() == '\\') bad("absolute path");
  if (path.size() >= 2 && path[1] == ':') bad("drive path");
  for (char c : path)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) bad("control character");
  for (size_t start = 0;;) {
    size_t end = path.find_first_of("/\\", start);
    std::string_view part = path.substr(start, end == std::string_view::npos ? path.npos : end - start);
    if (part.empty() || part == "." || part == "..") bad("empty, '.' or '..' segment");
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
}

std::optional<RepoRef> parse_repo_ref(std::string_view arg) {
  // A trailing ":NAME" after the id or the revision picks one GGUF model (a git ref holds no ':', and the
  // colon of "https://" has a '/' after it). Anything else with a colon stays a local path (whose error then
  // says "no such file"): local-looking ones, a NAME that is not one, or one with a model file's extension
  // ("out/model:v2.gguf" is a file not yet written, not the repository out/model).
  std::optional<std::string> gguf_model;
  const size_t colon = arg.rfind(':');
  if (colon != std::string_view::npos && arg.find('/', colon) == std::string_view::npos &&
      arg.front() != '.' && arg.front() != '/' && arg.front() != '~') {
    const std::string_view name = arg.substr(colon + 1);
    if (name.empty() || !std::all_of(name.begin(), name.end(), id_char) || has_model_file_extension(name))
      return std::nullopt;
    gguf_model = std::string(name);
    arg = arg.substr(0, colon);
  }
  std::optional<RepoRef> ref = parse_hub_url(arg);
  if (!ref) {
    if (arg.empty() || arg.find("://") != std::string_view::npos) return std::nullopt;
    // Local-looking paths are never repo ids.
    if (arg.front() == '.' || arg.front() == '/' || arg.front() == '~') return std::nullopt;
    ref.emplace();
    size_t at = arg.find('@');
    ref->id = std::string(arg.substr(0, at));
    if (at != std::string_view::npos) {
      ref->revision = std::string(arg.substr(at + 1));
      ref->explicit_revision = true;
    }
    // Anything no repo id looks like is left to the local lookup (whose error then says "no such file"):
    // characters no id has, a second '/', or a model file's extension.
    for (char c : ref->id)
      if (!id_char(c) && c != '/') return std::nullopt;
    if (std::count(ref->id.begin(), ref->id.end(), '/') > 1) return std::nullopt;
    if (has_model_file_extension(ref->id)) return std::nullopt;
  }
  validate_repo_id(ref->id);
  validate_revision(ref->revision);
  if (gguf_model && ref->file)
    throw Error(ErrorKind::Usage, "model id", ":" + *gguf_model,
                "a URL naming a file (" + printable(*ref->file) + ") takes no :NAME");
  ref->gguf_model = std::move(gguf_model);
  return ref;
}

std::string url_quote(std::string_view s, bool keep_slash) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out += c;
    } else {
      out += '%';
      out += hex[u >> 4];
      out += hex[u & 15];
    }
  }
  return out;
}

std::string repo_folder_name(std::string_view id) {
  std::string out = "models--";
  for (char c : id) {
    if (c == '/')
      out += "--";
    else
      out += c;
  }
  return out;
}

}  // namespace ma
