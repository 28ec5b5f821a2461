// Training memory: optimizer states for full fine-tuning (AdamW in fp32; bf16 mixed precision with fp32
// master weights), activations with and without gradient checkpointing, LoRA and QLoRA.
#pragma once
#include <cstdint>
#include <vector>

#include "analysis/memory.h"
#include "model/inventory.h"

namespace ma {

// Exact sizes read from the template's tensor shapes, or, without a template (a GGUF file, bare weights),
// from the stored tensors' placements (block, role) and shapes: the same projections either way, so a GGUF
// of a model counts what its safetensors do (a GGUF matrix's shape is [out, in] as transformers'; a
// quantized one's is its logical shape).
struct AdapterCounts {
  uint64_t lora_parameters = 0;         // rank x (in + out) summed over the attention projections
  uint64_t quantizable_parameters = 0;  // weight matrices of the blocks: what QLoRA stores in NF4
};
AdapterCounts count_adapters(const ModelTemplate& model, uint64_t rank);
AdapterCounts count_adapters(const std::vector<InventoryTensor>& tensors, uint64_t rank);

struct TrainingInputs {
  uint64_t parameters = 0;
  // The stacks whose activations a training step stores, each at its own length (activation_stacks): an
  // encoder-decoder's encoder and decoder both. A stack of unknown length (no context): activations unknown.
  std::vector<ActivationStack> stacks;
  uint64_t batch = 1;
  uint64_t lora_rank = 16;
  AdapterCounts adapters;
  bool adapters_known = false;  // false when no projection LoRA targets was found: LoRA and QLoRA not sized
  bool qlora_possible = true;   // false for a checkpoint already quantized another way (GPTQ, FP8, ...)
};

std::vector<Estimate> estimate_training(const TrainingInputs& t, std::vector<std::string>& assumptions);

}  // namespace ma
