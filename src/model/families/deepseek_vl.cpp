// DeepSeek-VL as transformers converts it (deepseek-community/deepseek-vl-*): a SigLIP tower (without its
// pooling head in the checkpoints), an aligner of two linears into the text width, a Llama language model.
// The checkpoints store the tower under one more vision_model (transformers strips it on load).
#include <array>
#include <string>

#include "model/blocks.h"
#include "model/families/decoder_common.h"
#include "model/families/decoder_llama.h"
#include "model/families/family_groups.h"
#include "model/families/multimodal_towers.h"

namespace ma::families {
namespace {

void build_deepseek_vl(const ModelConfig& cfg, ModelTemplate& t) {
  const bool conditional = first_architecture(cfg) != "DeepseekVLModel";
  t.arch.architecture = conditional ? "DeepseekVLForConditionalGeneration" : "DeepseekVLModel";
  const std::string root = conditional ? "model." : "";
  const ModelConfig text = sub_or_empty(cfg, "text_config");
  const std::string type = text.string_or("model_type", "llama");
  if (type != "llama") unsupported(cfg, "DeepSeek-VL with a " + type + " language model");
  // SiglipVisionConfig's defaults; the head is built unless vision_use_head says otherwise.
  VitDefaults siglip = siglip_vision_defaults();
  siglip.model_type = "siglip_vision_model";
  const uint64_t vision = vit_tower(sub_or_empty(cfg, "vision_config"), root + "vision_model.", siglip, t);
  LlamaStyle s = read_llama_text(text, t);
  const uint64_t h = t.arch.hidden_size;
  blocks::linear(t, root + "aligner.linear1", vision, h, true);
  blocks::linear(t, root + "aligner.linear2", h, h, true);
  record_projector(t, root + "aligner");
  // The converted configs name no tying: the original's head is trained apart and the checkpoints hold it
  // (transformers, whose config class now defaults to tying, unties them on load as they differ).
  t.arch.tie_word_embeddings = tie_embeddings(cfg, text, false);
  llama_style_decoder(t, root + "language_model.", s);
  if (conditional) lm_head(t, root + "language_model.embed_tokens.weight", t.arch);
  t.rename_on_disk(root + "vision_model.", root + "vision_model.vision_model.");
  t.arch.model_type = "deepseek_vl";
}

constexpr std::array kDeepseekVlFamilies{FamilyBuilder{"deepseek_vl", build_deepseek_vl}};

}  // namespace

std::span<const FamilyBuilder> deepseek_vl() {
  return kDeepseekVlFamilies;
}

}  // namespace ma::families
