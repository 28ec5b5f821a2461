// The architecture record of a GGUF model, from llama.cpp's metadata: general.architecture names the family
// and the "{arch}.*" keys give what config.json gives elsewhere (block_count, embedding_length, attention
// heads — per layer where they vary —, key/value lengths, sliding window and its pattern, rope, experts, SSM
// sizes, MLA ranks). The layers' kinds come from the tensors (infer_record); this fills their dimensions.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "formats/gguf.h"
#include "model/architecture.h"
#include "model/inventory.h"

namespace ma {

// The Hugging Face model_type of a llama.cpp architecture name ("qwen3moe" -> "qwen3_moe"); "" if unknown.
std::string_view model_type_of_gguf_architecture(std::string_view gguf_arch);

// The row order llama.cpp's converter (convert_hf_to_gguf.py) writes an architecture's q/k projections in,
// against transformers' q_proj / k_proj: Rotary where it permutes them for its rotary kernel (the classes
// built on LlamaModel, OLMo, MiniCPM), AsOriginal where it keeps transformers' rows, Unknown elsewhere.
enum class GgufQkRows { Unknown, Rotary, AsOriginal };
GgufQkRows gguf_qk_row_order(std::string_view gguf_arch);

// llama.cpp's general.file_type (enum llama_ftype) by name ("Q4_K_M"); "" for a number it does not define.
std::string_view gguf_file_type_name(uint64_t file_type);

// Where an architecture's llama.cpp names mean other blocks than they do alone (Qwen3-Next's ssm_* tensors
// are a gated DeltaNet, not a Mamba mixer), moves those tensors to their blocks and Hugging Face roles.
// Called before the layers' kinds are read from the tensors.
void place_gguf_architecture_tensors(const GgufFile& g, std::vector<InventoryTensor>& tensors);

// Fills `a` (already holding the stacks and layer kinds the tensor names show) from the metadata. Returns
// what the user should know (an architecture llama.cpp names but we do not map, keys that contradict the
// tensors), one line each. Throws Error(Malformed), naming `file` and the key, for head counts no model can
// have, an architecture key of the wrong type, negative, 0 where a size is needed or above the dimension cap,
// and a per-layer array of other than block_count entries (llama.cpp's rule).
std::vector<std::string> fill_record_from_gguf(const GgufFile& g, const std::vector<InventoryTensor>& tensors,
                                               ArchitectureRecord& a, const std::string& file);

}  // namespace ma
