// The files this run reads as input, by device and inode: an output never replaces one. A report exported
// over the model's config.json, or a comparison over a checkpoint it read, would destroy the input (the
// atomic rename replaces even a read-only file), so write_output refuses such a path whatever its spelling
// (a symlink, "./", a hard link).
#pragma once
#include <cstdint>
#include <filesystem>

namespace ma {

// Called by every local read (FileSource); safe from any thread.
void note_input_file(uint64_t device, uint64_t inode);
bool is_input_file(uint64_t device, uint64_t inode);

// The files of the model `model` names (a directory, or a file in one), noted as inputs when the model is
// located, whether or not this command goes on to open them: `stats MODEL --export MODEL/config.json` never
// reads the config, yet replacing it destroys the model. Noted by name: config.json and the other
// configuration files, the indexes and the tokenizer files, and `model` itself when it is a file; weight
// files are noted as every command reads them. Other files beside them (an earlier export) stay writable.
// Never throws: a file that cannot be inspected is not noted.
void note_model_files(const std::filesystem::path& model);

}  // namespace ma
