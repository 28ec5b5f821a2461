// DeepSeek-VL as transformers converts it (deepseek-community/deepseek-vl-*): a SigLIP tower (without its
// pooling head in the checkpoints), an aligner of two linears into the text width, a Llama language model.
// The checkpoints store the tower under one more vision_model (transformers strips it on load).
#include <array>
#include <string>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/family_groups.h"
#include "model/families/llama_vlm.h"
#include "model/families/multimodal_towers.h"
#include "model/families/sam_vision.h"

namespace ma::families {
namespace {

void build_deepseek_vl(const ModelConfig& cfg, ModelTemplate& t) {
  const LlamaVlm v = begin_llama_vlm(cfg, t, "DeepseekVL", "DeepSeek-VL");
  // SiglipVisionConfig's defaults; the head is built unless vision_use_head says otherwise.
  VitDefaults siglip = siglip_vision_defaults();
  siglip.model_type = "siglip_vision_model";
  const uint64_t vision = vit_tower(sub_or_empty(cfg, "vision_config"), v.root + "vision_model.", siglip, t);
  const uint64_t h = t.arch.hidden_size;
  blocks::linear(t, v.root + "aligner.linear1", vision, h, true);
  blocks::linear(t, v.root + "aligner.linear2", h, h, true);
  record_projector(t, v.root + "aligner");
  // The converted configs name no tying: the original's head is trained apart and the checkpoints hold it
  // (transformers, whose config class now defaults to tying, unties them on load as they differ).
  finish_llama_vlm(v, t, tie_embeddings(cfg, v.text, false), "deepseek_vl");
  t.rename_on_disk(v.root + "vision_model.", v.root + "vision_model.vision_model.");
}

// DeepSeek-VL-7B as transformers converts it (deepseek_vl_hybrid): beside the SigLIP tower, SAM's encoder at
// 1,024 pixels (high_res_vision_config, SamVisionConfig's defaults), whose first global layer's states also
// pass a second neck; two strided convolutions take the necks' sum to 4 x output_channels, mixed with the
// SAM features by a learned alpha. The aligner maps each tower to half the text width and the two halves
// through one linear.
void build_deepseek_vl_hybrid(const ModelConfig& cfg, ModelTemplate& t) {
  const LlamaVlm v = begin_llama_vlm(cfg, t, "DeepseekVLHybrid", "DeepSeek-VL");
  t.add(v.root + "high_res_vision_alpha", {1});
  const SamShape sam = read_sam_shape(sub_or_empty(cfg, "high_res_vision_config"));
  sam_vision_encoder(sam, v.root + "high_res_vision_model.vision_encoder.", false, t);
  sam_neck(t, v.root + "high_res_vision_neck.", sam.hidden, sam.out, false);
  const std::string down = v.root + "high_res_vision_proj.";
  t.add(down + "conv1.weight", {2 * sam.out, sam.out, 3, 3});
  t.add(down + "conv2.weight", {4 * sam.out, 2 * sam.out, 3, 3});
  VitDefaults siglip = siglip_vision_defaults();
  siglip.model_type = "siglip_vision_model";
  const uint64_t vision = vit_tower(sub_or_empty(cfg, "vision_config"), v.root + "vision_model.", siglip, t);
  const uint64_t h = t.arch.hidden_size;
  blocks::linear(t, v.root + "aligner.vision_proj", vision, h / 2, true);
  blocks::linear(t, v.root + "aligner.high_res_vision_proj", 4 * sam.out, h / 2, true);
  blocks::linear(t, v.root + "aligner.proj", h, h, true);
  record_projector(t, v.root + "aligner");
  finish_llama_vlm(v, t, tie_embeddings(cfg, v.text, false), "deepseek_vl_hybrid");
  t.rename_on_disk(v.root + "vision_model.", v.root + "vision_model.vision_model.");
}

constexpr std::array kDeepseekVlFamilies{FamilyBuilder{"deepseek_vl", build_deepseek_vl},
                                         FamilyBuilder{"deepseek_vl_hybrid", build_deepseek_vl_hybrid}};

}  // namespace

std::span<const FamilyBuilder> deepseek_vl() {
  return kDeepseekVlFamilies;
}

}  // namespace ma::families
