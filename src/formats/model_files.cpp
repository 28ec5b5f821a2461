#include "formats/model_files.h"

#include <algorithm>
#include <system_error>

#include "core/error.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

LocalModelFiles locate_local_model(const std::string& arg) {
  LocalModelFiles m;
  m.display_name = arg;
  std::error_code ec;
  fs::path p(arg);
  auto st = fs::status(p, ec);
  if (ec || !fs::exists(st)) throw Error(ErrorKind::NotFound, arg, "", "no such file or directory");

  if (fs::is_regular_file(st)) {
    m.root = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    std::string name = p.filename().string();
    if (ends_with(name, ".safetensors")) {
      m.safetensors.push_back(p);
    } else if (ends_with(name, ".index.json")) {
      m.index = p;
      m.index_is_pytorch = name.find(".bin.") != std::string::npos;
      if (fs::exists(m.root / "config.json")) m.config = m.root / "config.json";
    } else if (ends_with(name, ".json")) {
      m.config = p;
    } else {
      throw Error(ErrorKind::Usage, arg, "",
                  "not a model file this command reads (expected a directory, .safetensors or config.json)");
    }
    return m;
  }
  if (!fs::is_directory(st)) throw Error(ErrorKind::Usage, arg, "", "not a regular file or directory");

  m.root = p;
  // A name that exists is the model's file whatever its type: reading it (FileSource) then refuses a FIFO or
  // device with an error naming it, rather than the model being silently analysed without it.
  if (fs::exists(p / "config.json", ec)) m.config = p / "config.json";
  if (fs::exists(p / "model.safetensors.index.json", ec)) {
    m.index = p / "model.safetensors.index.json";
  } else if (fs::exists(p / "pytorch_model.bin.index.json", ec)) {
    m.index = p / "pytorch_model.bin.index.json";
    m.index_is_pytorch = true;
  }
  if (!m.index) {
    // Unsharded: every .safetensors file in the directory, except PEFT adapter weights next to a full model.
    std::vector<fs::path> found, adapters;
    for (const auto& e : fs::directory_iterator(p, ec)) {
      if (e.is_directory(ec)) continue;
      std::string name = e.path().filename().string();
      for (std::string_view ext : {".bin", ".pt", ".pth", ".gguf", ".onnx"})
        if (ends_with(name, ext)) m.unread_weights.push_back(e.path());
      if (!ends_with(name, ".safetensors")) continue;
      (name.rfind("adapter_", 0) == 0 ? adapters : found).push_back(e.path());
    }
    if (found.empty()) found = adapters;
    std::sort(found.begin(), found.end());
    std::sort(m.unread_weights.begin(), m.unread_weights.end());
    m.safetensors = std::move(found);
  }
  if (!m.config && !m.index && m.safetensors.empty())
    throw Error(ErrorKind::NotFound, arg, "", "directory holds no config.json, index or .safetensors file");
  return m;
}

}  // namespace ma
