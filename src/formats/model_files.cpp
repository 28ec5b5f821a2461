#include "formats/model_files.h"

#include <algorithm>
#include <system_error>

#include "core/error.h"
#include "formats/weight_format.h"
#include "io/file_source.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// What torch.save writes under the names users give it.
bool torch_checkpoint_name(const std::string& name) {
  for (std::string_view ext : {".bin", ".pt", ".pth", ".ckpt"})
    if (ends_with(name, ext)) return true;
  return false;
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
    if (!ends_with(name, ".json")) {
      // A weight file is what its bytes say, whatever its name.
      const WeightFormat format = sniff_weight_format(FileSource(p));
      if (fs::exists(m.root / "config.json")) m.config = m.root / "config.json";
      switch (format) {
        case WeightFormat::Safetensors:
          m.safetensors.push_back(p);
          return m;
        case WeightFormat::PytorchZip:
        case WeightFormat::PytorchLegacy:
          m.torch_files.push_back(p);
          return m;
        case WeightFormat::Gguf:
          throw Error(ErrorKind::Unsupported, arg, "",
                      "a GGUF file: not read yet (safetensors and PyTorch are)");
        case WeightFormat::Unknown:
          break;
      }
    }
    if (ends_with(name, ".index.json")) {
      m.index = p;
      m.index_is_pytorch = name.find(".bin.") != std::string::npos;
      if (fs::exists(m.root / "config.json")) m.config = m.root / "config.json";
    } else if (ends_with(name, ".json")) {
      m.config = p;
    } else {
      throw Error(ErrorKind::Usage, arg, "",
                  "not a model file this command reads (expected a directory, a safetensors or PyTorch "
                  "checkpoint, or config.json)");
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
    std::vector<fs::path> found, adapters, torch;
    for (const auto& e : fs::directory_iterator(p, ec)) {
      if (e.is_directory(ec)) continue;
      std::string name = e.path().filename().string();
      if (torch_checkpoint_name(name)) torch.push_back(e.path());
      for (std::string_view ext : {".gguf", ".onnx"})
        if (ends_with(name, ext)) m.unread_weights.push_back(e.path());
      if (!ends_with(name, ".safetensors")) continue;
      (name.rfind("adapter_", 0) == 0 ? adapters : found).push_back(e.path());
    }
    if (found.empty()) found = adapters;
    std::sort(found.begin(), found.end());
    std::sort(torch.begin(), torch.end());
    // Safetensors first: a repository holding both formats stores the same weights twice. Of several PyTorch
    // files, transformers' pytorch_model.bin is the model's; others (epochs, optimizer dumps) are other
    // checkpoints, not shards, and which one is meant only the user can say.
    if (!found.empty()) {
      m.unread_weights.insert(m.unread_weights.end(), torch.begin(), torch.end());
    } else if (torch.size() > 1) {
      auto hf = std::find_if(torch.begin(), torch.end(),
                             [](const fs::path& f) { return f.filename() == "pytorch_model.bin"; });
      if (hf == torch.end()) {
        std::string names;
        for (const fs::path& f : torch) names += (names.empty() ? "" : ", ") + f.filename().string();
        throw Error(ErrorKind::Usage, arg, "",
                    "holds " + std::to_string(torch.size()) + " PyTorch checkpoints (" + names +
                        "): name the file to analyse");
      }
      m.torch_files.push_back(*hf);
      for (const fs::path& f : torch)
        if (f != *hf) m.unread_weights.push_back(f);
    } else {
      m.torch_files = torch;
    }
    std::sort(m.unread_weights.begin(), m.unread_weights.end());
    m.safetensors = std::move(found);
  }
  if (!m.config && !m.index && m.safetensors.empty() && m.torch_files.empty())
    throw Error(ErrorKind::NotFound, arg, "",
                "directory holds no config.json, index, .safetensors or PyTorch checkpoint file");
  return m;
}

}  // namespace ma
