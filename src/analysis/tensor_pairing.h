// Which tensor of checkpoint B holds the weights of each tensor of checkpoint A, for `compare`. Checkpoints
// of one format pair by name. Across formats (an original in safetensors and its GGUF quantization) names
// differ, so tensors pair by where they sit: layer, block, role, weight or bias, and the expert they belong
// to — llama.cpp stacks a layer's experts in one 3-D tensor, whose slices pair with the per-expert originals.
// Where one place holds several tensors of one shape in both (a layer's two norms), the names settle it when
// they can: llama.cpp's converter gives each Hugging Face module one GGUF name (input_layernorm is attn_norm,
// post_attention_layernorm ffn_norm, or post_attention_norm where the model also has a
// pre_feedforward_layernorm), and when exactly one one-to-one pairing of the place's tensors fits those names
// it is kept. Otherwise (names the table does not know, or several pairings that fit them) the candidates are
// left to the caller, which keeps the pairing that makes them most alike. Tensors the places leave unpaired
// (a place whose sides hold different counts, a module one format places in another block) pair by those
// names too, within their layer, where exactly one one-to-one pairing of them fits.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/dtype.h"
#include "core/shape.h"
#include "formats/checkpoint.h"

namespace ma {

// A tensor, or one expert's slice of a stacked expert tensor, as compare reads it.
struct PairedSide {
  std::string name;    // as stored; a slice is "blk.3.ffn_up_exps.weight[7]"
  std::string tensor;  // the stored tensor's name (a slice's whole tensor)
  int64_t slice = -1;  // the expert a slice holds
  std::filesystem::path file;
  uint64_t offset = 0;  // of its first byte in the file
  DType dtype = DType::F32;
  Shape shape;
  uint64_t numel = 0;
  bool in_order = true;  // elements are row-major on disk (not a strided or permuted PyTorch view)
  bool encoded = false;  // ONNX varint values: no bytes to read
  bool gguf = false;     // named in llama.cpp's scheme (a GGUF file's tensor)
  std::string tie_of;    // a PyTorch tie: the earlier name of the same storage and view; "" otherwise
};

// Every tensor of a checkpoint; with `split_experts`, a 3-D routed-expert tensor becomes one slice per
// expert.
std::vector<PairedSide> paired_sides(const LocalModelFiles& files, const Checkpoint& ck, bool split_experts);

struct TensorPairs {
  std::vector<std::pair<size_t, size_t>> pairs;  // (index in A, index in B), in A's order
  // Places holding n > 1 tensors of one shape on both sides: every A x B candidate of the group.
  std::vector<std::vector<std::pair<size_t, size_t>>> ambiguous;
  std::vector<size_t> only_a, only_b;
  uint64_t paired_by_names = 0;  // pairs of a shared place settled by llama.cpp's names (in `pairs`)
};

TensorPairs pair_by_name(const std::vector<PairedSide>& a, const std::vector<PairedSide>& b);
TensorPairs pair_by_place(const std::vector<PairedSide>& a, const std::vector<PairedSide>& b);

// Whether a GGUF tensor and a tensor of another format are the same weight by name: the GGUF name's module
// ("blk.3.ffn_norm.weight" -> ffn_norm) is one llama.cpp's converter writes for the other's module path
// ("model.layers.3.post_attention_layernorm"). False when either is unknown to the table, or both sides are
// of one scheme.
bool same_weight_by_name(const PairedSide& x, const PairedSide& y);

}  // namespace ma
