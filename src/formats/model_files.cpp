#include "formats/model_files.h"

#include <algorithm>
#include <string>
#include <system_error>
#include <unordered_set>
#include <utility>

#include "core/error.h"
#include "core/text.h"
#include "formats/gguf_split.h"
#include "formats/weight_format.h"
#include "io/file_source.h"
#include "io/input_files.h"

namespace fs = std::filesystem;

namespace ma {
namespace {

// The format a file's name claims. A file whose bytes open like no format (a truncated download, a file
// saved half-way) is still read as that format, so that its reader names what is wrong with it; the bytes
// decide otherwise (a GGUF saved as model.bin is read as GGUF).
WeightFormat format_by_name(const std::string& name) {
  if (name.ends_with(".safetensors")) return WeightFormat::Safetensors;
  if (name.ends_with(".gguf")) return WeightFormat::Gguf;
  if (name.ends_with(".onnx")) return WeightFormat::Onnx;
  if (is_torch_checkpoint_name(name))
    return WeightFormat::PytorchZip;  // its reader tells zip and legacy apart
  return WeightFormat::Unknown;
}

// A local path that exists but cannot be followed (a dangling or looping symbolic link): opening it says
// why, in the one line every unreadable input gets (exit 8 for a missing target, 9 for a loop).
[[noreturn]] void report_unfollowable(const fs::path& p, const std::error_code& why) {
  try {
    const FileSource opened(p);
  } catch (const Error& e) {
    std::error_code ec;
    if (e.kind() == ErrorKind::NotFound && fs::is_symlink(fs::symlink_status(p, ec)))
      throw Error(e.kind(), e.file(), e.field(),
                  "a symbolic link whose target does not exist (" + e.rule() + ")");
    throw;
  }
  throw Error(ErrorKind::LocalIO, p.string(), "", "cannot follow: " + why.message());
}

// Every part of the split model `file` belongs to (just `file` when it is not split); all must be present.
std::vector<fs::path> gguf_parts(const fs::path& file) {
  const auto split = gguf_split_name(file.filename().string());
  if (!split) return {file};
  std::vector<fs::path> parts;
  for (unsigned k = 1; k <= split->count; ++k) {
    fs::path p = file.parent_path() / gguf_part_name(split->prefix, k, split->count);
    if (!path_is_present(p))
      throw Error(ErrorKind::NotFound, file.string(), "split part " + std::to_string(k),
                  p.filename().string() + " is missing (a split GGUF model is read from all its parts)");
    parts.push_back(std::move(p));
  }
  return parts;
}

// A directory's GGUF models: one entry per file or split model (keyed by its first part), in name order. A
// split model whose first part is absent is keyed by it all the same, so that it is named as missing (as a
// model missing a later part is), not passed over.
std::vector<fs::path> gguf_models_in(const std::vector<fs::path>& ggufs) {
  std::vector<fs::path> models;
  std::unordered_set<std::string> present, absent;  // hashed: a folder of 10,000 orphan parts scans nothing
  for (const fs::path& f : ggufs) present.insert(f.string());
  for (const fs::path& f : ggufs) {
    const std::string name = f.filename().string();
    if (is_gguf_model_entry(name)) {
      models.push_back(f);
      continue;
    }
    const std::optional<GgufSplitName> split = gguf_split_name(name);
    if (!split || name.starts_with("mmproj")) continue;
    fs::path first = f.parent_path() / gguf_part_name(split->prefix, 1, split->count);
    if (!present.count(first.string()) && absent.insert(first.string()).second)
      models.push_back(std::move(first));
  }
  std::sort(models.begin(), models.end());
  return models;
}

// "a.gguf, b.gguf": the files a user must choose from.
std::string names_of(const std::vector<fs::path>& files) {
  std::string names;
  for (const fs::path& f : files) names += (names.empty() ? "" : ", ") + f.filename().string();
  return names;
}

// Beside an ONNX model a .bin file is usually its external data, not a PyTorch checkpoint: only the files
// whose bytes are a checkpoint are kept.
void keep_torch_checkpoints(std::vector<fs::path>& torch) {
  std::erase_if(torch, [](const fs::path& f) {
    const WeightFormat w = sniff_weight_format(FileSource(f));
    return w != WeightFormat::PytorchZip && w != WeightFormat::PytorchLegacy;
  });
}

// The models in the folders under `dir`, where they are the only weights there and all of one format, as
// the Hub's repositories lay them out: GGUF models one folder per large quantization
// (UD-Q2_K_XL/name-UD-Q2_K_XL-00001-of-00005.gguf; each by its first file), ONNX models in transformers.js's
// onnx/ or one folder per target (ONNX Runtime GenAI's cpu-int4/). At most two folders deep, and in a tree of
// at most 10,000 entries (a home directory is no model); else none. Path order.
struct ModelsInFolders {
  std::vector<fs::path> gguf, onnx;
};
ModelsInFolders models_in_folders(const fs::path& dir) {
  constexpr int kMaxDepth = 2;  // folders entered: dir/a/b/model.gguf at the deepest
  constexpr size_t kMaxEntries = 10000;
  ModelsInFolders found;
  std::vector<fs::path> torch;
  std::error_code ec;
  size_t entries = 0;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec)) {
    if (++entries > kMaxEntries) return {};
    std::error_code fec;
    if (it->is_directory(fec)) {
      if (it.depth() >= kMaxDepth) it.disable_recursion_pending();  // dir/a/b/c is not entered
      continue;
    }
    if (it.depth() == 0) continue;  // the top holds no weights (the caller found none there)
    const std::string name = it->path().filename().string();
    if (name.ends_with(".gguf")) found.gguf.push_back(it->path());
    if (name.ends_with(".onnx")) found.onnx.push_back(it->path());
    if (is_torch_checkpoint_name(name)) torch.push_back(it->path());
    if (name.ends_with(".safetensors")) return {};
  }
  if (!found.onnx.empty()) keep_torch_checkpoints(torch);
  if (!torch.empty() || (!found.gguf.empty() && !found.onnx.empty())) return {};
  std::sort(found.gguf.begin(), found.gguf.end());
  std::sort(found.onnx.begin(), found.onnx.end());
  found.gguf = gguf_models_in(found.gguf);
  return found;
}

// Several models are the directory's weights, at its top or in its folders (`in_folders`): GGUF models
// (quantizations of one model) or ONNX models (an export's variants). Returned for the caller to list
// (SeveralModels::List: no weights, and no config, each model carrying its own; the caller describes them
// from the files), else refused naming them by their paths under the directory.
LocalModelFiles several_models(LocalModelFiles m, const std::string& arg, CheckpointFormat format,
                               const std::vector<fs::path>& models, bool in_folders, SeveralModels several) {
  const bool gguf = format == CheckpointFormat::Gguf;
  if (several == SeveralModels::List) {
    m.config.reset();
    (gguf ? m.gguf_models : m.onnx_models) = models;
    return m;
  }
  std::vector<std::string> paths;
  for (const fs::path& f : models) paths.push_back(f.lexically_relative(m.root).generic_string());
  const std::string names = first_and_more(paths, 6);  // one line: a handful of paths, then how many more
  std::string choose;
  if (several == SeveralModels::AskForFile)
    choose = gguf ? std::string(", or choose one with --file NAME (") + (in_folders ? "a path, " : "") +
                        "a file name, or a quantization such as Q4_K_M)"
                  : std::string(", or choose one with --file ") + (in_folders ? "PATH" : "NAME");
  throw Error(ErrorKind::Usage, arg, "",
              "holds " + std::to_string(models.size()) + (gguf ? " GGUF" : " ONNX") + " models" +
                  (in_folders ? " in its folders" : "") + " (" + names + "): name the file to analyse" +
                  choose);
}

// A .safetensors file in `dir` that is not a PEFT adapter's.
bool holds_model_safetensors(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.ends_with(".safetensors") && name.rfind("adapter_", 0) != 0 && !e.is_directory(ec)) return true;
  }
  return false;
}

}  // namespace

std::vector<fs::path> onnx_files_in_folders(const fs::path& dir) {
  return models_in_folders(dir).onnx;
}

bool path_is_present(const fs::path& path) {
  std::error_code ec;
  const fs::file_status st = fs::symlink_status(path, ec);
  if (!ec) return fs::exists(st);
  // lstat fails for the name itself only when it is not there; a looping or unsearchable parent is a name
  // that is there but cannot be reached, which opening reports.
  return ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory;
}

LocalModelFiles locate_local_model(const std::string& arg, SeveralModels several) {
  LocalModelFiles m;
  m.display_name = arg;
  std::error_code ec;
  fs::path p(arg);
  if (!path_is_present(p)) throw Error(ErrorKind::NotFound, arg, "", "no such file or directory");
  const fs::file_status st = fs::status(p, ec);
  if (ec) report_unfollowable(p, ec);
  note_model_files(p);  // protected from outputs whether or not this command reads them

  if (fs::is_regular_file(st)) {
    m.root = p.parent_path().empty() ? fs::path(".") : p.parent_path();
    std::string name = p.filename().string();
    if (!name.ends_with(".json")) {
      // A weight file is what its bytes say, whatever its name.
      WeightFormat format = sniff_weight_format(FileSource(p));
      if (format == WeightFormat::Unknown) format = format_by_name(name);
      if (path_is_present(m.root / "config.json")) m.config = m.root / "config.json";
      switch (format) {
        case WeightFormat::Safetensors:
          m.format = CheckpointFormat::Safetensors;
          m.weight_files = {p};
          return m;
        case WeightFormat::PytorchZip:
        case WeightFormat::PytorchLegacy:
          m.format = CheckpointFormat::Pytorch;
          m.weight_files = {p};
          return m;
        case WeightFormat::Gguf:
          m.config.reset();  // a GGUF file carries its own configuration
          m.format = CheckpointFormat::Gguf;
          m.weight_files = gguf_parts(p);
          return m;
        case WeightFormat::Onnx:
          m.format = CheckpointFormat::Onnx;
          m.weight_files = {p};
          return m;
        case WeightFormat::Unknown:
          break;
      }
    }
    if (name.ends_with(".index.json")) {
      m.index = p;
      m.index_is_pytorch = name.find(".bin.") != std::string::npos;
      m.format = m.index_is_pytorch ? CheckpointFormat::Pytorch : CheckpointFormat::Safetensors;
      if (path_is_present(m.root / "config.json")) m.config = m.root / "config.json";
    } else if (name.ends_with(".json")) {
      m.config = p;
    } else {
      throw Error(
          ErrorKind::Usage, arg, "",
          "not a model file this command reads (expected a directory, a safetensors, PyTorch, GGUF or "
          "ONNX model, or config.json)");
    }
    return m;
  }
  if (!fs::is_directory(st))  // a FIFO or device: refused like one inside a model directory, never waited on
    throw Error(ErrorKind::LocalIO, arg, "",
                std::string(fs::is_fifo(st)                                      ? "is a FIFO"
                            : fs::is_character_file(st) || fs::is_block_file(st) ? "is a device"
                                                                                 : "is a socket") +
                    ", not a regular file or directory; refusing to read it");

  m.root = p;
  // A name that exists is the model's file whatever its type: reading it (FileSource) then refuses a FIFO,
  // a device or a link that cannot be followed with an error naming it, rather than the model being
  // silently analysed without it.
  if (path_is_present(p / "config.json")) m.config = p / "config.json";
  if (path_is_present(p / "model.safetensors.index.json")) {
    m.index = p / "model.safetensors.index.json";
    m.format = CheckpointFormat::Safetensors;
  } else if (path_is_present(p / "pytorch_model.bin.index.json") && !holds_model_safetensors(p)) {
    // Safetensors come first whatever else the directory holds (see below): a repository shipping both
    // formats, downloaded with only *.json and *.safetensors, has the PyTorch index without its shards.
    m.index = p / "pytorch_model.bin.index.json";
    m.index_is_pytorch = true;
    m.format = CheckpointFormat::Pytorch;
  }
  if (!m.index) {
    // Unsharded: every .safetensors file in the directory, except PEFT adapter weights next to a full model.
    std::vector<fs::path> found, adapters, torch, gguf, onnx;
    for (const auto& e : fs::directory_iterator(p, ec)) {
      if (e.is_directory(ec)) continue;
      std::string name = e.path().filename().string();
      if (is_torch_checkpoint_name(name)) torch.push_back(e.path());
      if (name.ends_with(".gguf")) gguf.push_back(e.path());
      if (name.ends_with(".onnx")) onnx.push_back(e.path());
      if (!name.ends_with(".safetensors")) continue;
      (name.rfind("adapter_", 0) == 0 ? adapters : found).push_back(e.path());
    }
    if (found.empty()) found = adapters;
    std::sort(found.begin(), found.end());
    std::sort(torch.begin(), torch.end());
    if (!onnx.empty()) keep_torch_checkpoints(torch);
    // One format holds the model's weights, in this order of precedence: safetensors (a repository holding
    // several formats stores the same weights again for other tools), PyTorch, GGUF (shipped for llama.cpp),
    // ONNX (an export). The others are named as unread.
    std::sort(gguf.begin(), gguf.end());
    std::sort(onnx.begin(), onnx.end());
    const std::vector<fs::path> gguf_models = gguf_models_in(gguf);
    if (!found.empty()) {
      m.format = CheckpointFormat::Safetensors;
      m.weight_files = std::move(found);
    } else if (!torch.empty()) {
      // Of several PyTorch files, transformers' pytorch_model.bin is the model's; others (epochs, optimizer
      // dumps) are other checkpoints, not shards, and which one is meant only the user can say.
      auto chosen = torch.begin();
      if (torch.size() > 1) {
        chosen = std::find_if(torch.begin(), torch.end(),
                              [](const fs::path& f) { return f.filename() == "pytorch_model.bin"; });
        if (chosen == torch.end())
          throw Error(ErrorKind::Usage, arg, "",
                      "holds " + std::to_string(torch.size()) + " PyTorch checkpoints (" + names_of(torch) +
                          "): name the file to analyse");
      }
      m.format = CheckpointFormat::Pytorch;
      m.weight_files = {*chosen};
    } else if (!gguf_models.empty()) {
      // Of several quantizations of one model, only the user can say which is meant.
      if (gguf_models.size() > 1)
        return several_models(std::move(m), arg, CheckpointFormat::Gguf, gguf_models, false, several);
      m.format = CheckpointFormat::Gguf;
      m.weight_files = gguf_parts(gguf_models.front());
      m.config.reset();  // a GGUF file carries its own configuration
    } else if (!gguf.empty() && onnx.empty() && !m.config) {
      // GGUF files, none a model: multimodal projectors alone.
      throw Error(
          ErrorKind::NotFound, arg, "",
          "holds only multimodal projectors (" + names_of(gguf) + "), no GGUF model to read them with");
    } else if (!onnx.empty()) {
      // Of several exports, model.onnx is the model (as on the Hub: optimum writes its quantized
      // model_quantized.onnx beside it); without one only the user can say, and beside a config the report
      // is the config's, the exports offered.
      const auto model = std::find_if(onnx.begin(), onnx.end(),
                                      [](const fs::path& f) { return f.filename() == "model.onnx"; });
      if (onnx.size() == 1 || model != onnx.end()) {
        m.format = CheckpointFormat::Onnx;
        m.weight_files = {onnx.size() == 1 ? onnx.front() : *model};
      } else if (m.config) {
        m.onnx_models = std::exchange(onnx, {});
      } else {
        return several_models(std::move(m), arg, CheckpointFormat::Onnx, onnx, false, several);
      }
    }
    for (const std::vector<fs::path>* files : {&torch, &gguf, &onnx})
      for (const fs::path& f : *files)
        if (std::find(m.weight_files.begin(), m.weight_files.end(), f) == m.weight_files.end())
          m.unread_weights.push_back(f);
    std::sort(m.unread_weights.begin(), m.unread_weights.end());
  }
  if (m.format == CheckpointFormat::None && m.onnx_models.empty()) {
    // No weights at the top: one model in a folder is the model, as on the Hub (a GGUF model whatever
    // config.json says, a GGUF file carrying its own; an ONNX model with the config beside it, else the
    // directory's, as transformers.js's onnx/ folder has it).
    const ModelsInFolders in_folders = models_in_folders(p);
    if (in_folders.gguf.size() == 1) {
      m.config.reset();
      m.format = CheckpointFormat::Gguf;
      m.weight_files = gguf_parts(in_folders.gguf.front());
      m.root = in_folders.gguf.front().parent_path();  // read from its folder, as a GGUF file from its own
      return m;
    }
    if (in_folders.onnx.size() == 1) {
      m.format = CheckpointFormat::Onnx;
      m.weight_files = in_folders.onnx;
      m.root = in_folders.onnx.front().parent_path();  // its genai_config.json and data are beside it
      if (path_is_present(m.root / "config.json")) m.config = m.root / "config.json";
      return m;
    }
    if (in_folders.gguf.size() > 1)
      return several_models(std::move(m), arg, CheckpointFormat::Gguf, in_folders.gguf, true, several);
    // Several exports beside a config: the config's model, the exports offered (as a Hub repository's
    // report names them).
    if (in_folders.onnx.size() > 1 && m.config) {
      m.onnx_models = in_folders.onnx;
      return m;
    }
    if (in_folders.onnx.size() > 1)
      return several_models(std::move(m), arg, CheckpointFormat::Onnx, in_folders.onnx, true, several);
  }
  if (!m.config && m.format == CheckpointFormat::None)
    throw Error(ErrorKind::NotFound, arg, "",
                "directory holds no config.json, index, .safetensors, PyTorch, GGUF or ONNX file");
  return m;
}

}  // namespace ma
