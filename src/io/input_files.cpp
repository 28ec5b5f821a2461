#include "io/input_files.h"

#include <sys/stat.h>

#include <array>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace ma {
namespace {

struct InputFiles {
  std::mutex mutex;
  std::set<std::pair<uint64_t, uint64_t>> files;
};

InputFiles& inputs() {
  static InputFiles i;
  return i;
}

// The files beside the weights that a command may not open, yet belong to the model (formats/model_files.cpp,
// formats/tokenizer.cpp, hub/remote_model.cpp's list of what a Hub analysis fetches). Weight files need no
// list: every command reads their headers, and a read notes them. Looked up by name rather than by listing
// the directory, which for a model of 163 shards would cost a stat of each.
constexpr std::array<std::string_view, 18> kModelFileNames = {"config.json",
                                                              "generation_config.json",
                                                              "hf_quant_config.json",
                                                              "quantize_config.json",
                                                              "quant_config.json",
                                                              "adapter_config.json",
                                                              "genai_config.json",
                                                              "model.safetensors.index.json",
                                                              "pytorch_model.bin.index.json",
                                                              "tokenizer.json",
                                                              "tokenizer_config.json",
                                                              "special_tokens_map.json",
                                                              "chat_template.jinja",
                                                              "chat_template.json",
                                                              "tokenizer.model",
                                                              "vocab.json",
                                                              "merges.txt",
                                                              "added_tokens.json"};

void note_if_regular(const std::filesystem::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode))  // through symlinks: a Hub cache's blobs
    note_input_file(static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino));
}

}  // namespace

void note_input_file(uint64_t device, uint64_t inode) {
  InputFiles& i = inputs();
  std::lock_guard lock(i.mutex);
  i.files.emplace(device, inode);
}

bool is_input_file(uint64_t device, uint64_t inode) {
  InputFiles& i = inputs();
  std::lock_guard lock(i.mutex);
  return i.files.count({device, inode}) != 0;
}

void note_model_files(const std::filesystem::path& model) {
  std::error_code ec;
  std::filesystem::path dir = model;
  if (!std::filesystem::is_directory(model, ec)) {
    note_if_regular(model);  // whatever its name: the user named it as the model
    dir = model.has_parent_path() ? model.parent_path() : std::filesystem::path(".");
  }
  for (std::string_view name : kModelFileNames) note_if_regular(dir / name);
}

}  // namespace ma
